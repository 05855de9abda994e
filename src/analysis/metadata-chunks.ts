import { Inflate } from "pako";
import { pngChunks } from "./decoders/header";

export { pngChunks };

/*
 * Where PNG and WebP keep what a file says about itself (text chunks, EXIF, XMP), read from the
 * container's chunk list without touching the pixels: the metadata of a 25 MB PNG costs its text
 * chunks, not a decode of the frame.
 */

/** A compressed text chunk may inflate to at most this; a larger one (a zip bomb) is cut there. */
export const TEXT_CHUNK_MAX = 1024 * 1024;

export interface ContainerMetadata {
  /** PNG tEXt/zTXt/iTXt chunks, keyword → text (keys as written). */
  text: Record<string, string>;
  /** An XMP packet (PNG iTXt `XML:com.adobe.xmp`, WebP `XMP ` chunk). */
  xmp: string | null;
  /** A raw TIFF structure holding the EXIF (PNG `eXIf`, WebP `EXIF`). */
  exif: Uint8Array | null;
  /** Chunks that could not be read (the rest is still returned). */
  errors: string[];
}

export function pngMetadata(bytes: Uint8Array): ContainerMetadata {
  const out: ContainerMetadata = { text: {}, xmp: null, exif: null, errors: [] };
  for (const { type, body } of pngChunks(bytes)) {
    try {
      if (type === "tEXt") {
        const [keyword, rest] = splitAtNul(body);
        out.text[latin1(keyword)] = latin1(rest);
      } else if (type === "zTXt") {
        const [keyword, rest] = splitAtNul(body);
        out.text[latin1(keyword)] = latin1(inflateBounded(rest.subarray(1)));
      } else if (type === "iTXt") {
        const [keyword, afterKeyword] = splitAtNul(body);
        const compressed = afterKeyword[0] === 1;
        const [, afterLanguage] = splitAtNul(afterKeyword.subarray(2));
        const [, textBytes] = splitAtNul(afterLanguage);
        out.text[latin1(keyword)] = new TextDecoder().decode(compressed ? inflateBounded(textBytes) : textBytes);
      } else if (type === "eXIf") {
        out.exif = body;
      }
    } catch (err) {
      out.errors.push(`png ${type}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  out.xmp = out.text["XML:com.adobe.xmp"] ?? null;
  return out;
}

/** WebP (RIFF) `EXIF` and `XMP ` chunks. */
export function webpMetadata(bytes: Uint8Array): ContainerMetadata {
  const out: ContainerMetadata = { text: {}, xmp: null, exif: null, errors: [] };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let i = 12;
  while (i + 8 <= bytes.length) {
    const fourcc = String.fromCharCode(bytes[i]!, bytes[i + 1]!, bytes[i + 2]!, bytes[i + 3]!);
    const size = view.getUint32(i + 4, true);
    const body = bytes.subarray(i + 8, i + 8 + size);
    if (fourcc === "EXIF") out.exif = withoutExifPrefix(body);
    else if (fourcc === "XMP ") out.xmp = new TextDecoder().decode(body);
    i += 8 + size + (size & 1);
  }
  return out;
}

/** Some writers put JPEG's APP1 `Exif\0\0` header before the TIFF structure. */
function withoutExifPrefix(body: Uint8Array): Uint8Array {
  const prefixed = body.length > 6 && body[0] === 0x45 && body[1] === 0x78 && body[2] === 0x69 && body[3] === 0x66 && body[4] === 0 && body[5] === 0;
  return prefixed ? body.subarray(6) : body;
}

function splitAtNul(bytes: Uint8Array): [Uint8Array, Uint8Array] {
  const nul = bytes.indexOf(0);
  if (nul < 0) throw new Error("no NUL separator");
  return [bytes.subarray(0, nul), bytes.subarray(nul + 1)];
}

function latin1(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return out;
}

class TooLarge extends Error {}

function inflateBounded(compressed: Uint8Array): Uint8Array {
  const inflater = new Inflate({ chunkSize: 64 * 1024 });
  const parts: Uint8Array[] = [];
  let total = 0;
  inflater.onData = (chunk: Uint8Array) => {
    total += chunk.length;
    if (total > TEXT_CHUNK_MAX) throw new TooLarge(`inflates beyond ${TEXT_CHUNK_MAX} bytes`);
    parts.push(chunk);
  };
  inflater.push(compressed, true);
  if (inflater.err) throw new Error(inflater.msg || `zlib status ${inflater.err}`);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
