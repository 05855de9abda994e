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

/**
 * All text chunks together: the bytes inflated (kept or cut) and the chunks read. Without them a
 * 1 MB file of a thousand 1 KB zTXt chunks, each under the per-chunk limit, inflated to 700 MB of
 * strings in 53 s (test/unit/container-metadata.test.ts, before this limit).
 */
export const TEXT_TOTAL_MAX = 4 * 1024 * 1024;
export const TEXT_CHUNKS_MAX = 256;

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
  let spent = 0;
  let read = 0;
  let skipped = 0;
  const inflate = (compressed: Uint8Array) => {
    const limit = Math.min(TEXT_CHUNK_MAX, TEXT_TOTAL_MAX - spent);
    try {
      const text = inflateBounded(compressed, limit);
      spent += text.length;
      return text;
    } catch (err) {
      if (err instanceof TooLarge) spent += limit;
      throw err;
    }
  };
  for (const { type, body } of pngChunks(bytes)) {
    const isText = type === "tEXt" || type === "zTXt" || type === "iTXt";
    if (isText && (read >= TEXT_CHUNKS_MAX || spent >= TEXT_TOTAL_MAX)) {
      skipped += 1;
      continue;
    }
    if (isText) read += 1;
    try {
      if (type === "tEXt") {
        const [keyword, rest] = splitAtNul(body);
        out.text[latin1(keyword)] = latin1(rest.subarray(0, TEXT_TOTAL_MAX - spent));
        spent += Math.min(rest.length, TEXT_TOTAL_MAX - spent);
      } else if (type === "zTXt") {
        const [keyword, rest] = splitAtNul(body);
        out.text[latin1(keyword)] = latin1(inflate(rest.subarray(1)));
      } else if (type === "iTXt") {
        const [keyword, afterKeyword] = splitAtNul(body);
        const compressed = afterKeyword[0] === 1;
        const [, afterLanguage] = splitAtNul(afterKeyword.subarray(2));
        const [, textBytes] = splitAtNul(afterLanguage);
        const raw = compressed ? inflate(textBytes) : textBytes.subarray(0, TEXT_TOTAL_MAX - spent);
        if (!compressed) spent += raw.length;
        out.text[latin1(keyword)] = new TextDecoder().decode(raw);
      } else if (type === "eXIf") {
        out.exif = body;
      }
    } catch (err) {
      out.errors.push(`png ${type}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (skipped > 0) out.errors.push(`png text: ${skipped} chunks beyond the ${TEXT_CHUNKS_MAX} chunks or ${TEXT_TOTAL_MAX} bytes read were skipped`);
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

function inflateBounded(compressed: Uint8Array, limit: number): Uint8Array {
  const inflater = new Inflate({ chunkSize: 64 * 1024 });
  const parts: Uint8Array[] = [];
  let total = 0;
  inflater.onData = (chunk: Uint8Array) => {
    total += chunk.length;
    if (total > limit) throw new TooLarge(`inflates beyond ${limit} bytes`);
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
