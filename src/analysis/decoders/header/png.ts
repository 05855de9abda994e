import { DecodeFailure } from "../types";
import type { FrameHeader } from "./frame-header";

/** The chunks of a PNG after its signature, as views into `bytes`, up to IEND or the end of the bytes. */
export function* pngChunks(bytes: Uint8Array): Generator<{ type: string; body: Uint8Array }> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let i = 8;
  while (i + 8 <= bytes.length) {
    const length = view.getUint32(i);
    const type = String.fromCharCode(bytes[i + 4]!, bytes[i + 5]!, bytes[i + 6]!, bytes[i + 7]!);
    yield { type, body: bytes.subarray(i + 8, i + 8 + length) };
    if (type === "IEND") return;
    i += 12 + length;
  }
}

export interface PngHeader {
  width: number;
  height: number;
  depth: number;
  colorType: number;
  interlaced: boolean;
  /** Bytes of image data (the IDAT chunks' bodies). */
  idatBytes: number;
}

/** Samples per pixel of each colour type, and the bit depths it allows (PNG §11.2.2). */
export const PNG_COLOR_TYPES: Record<number, { samples: number; depths: number[] }> = {
  0: { samples: 1, depths: [1, 2, 4, 8, 16] },
  2: { samples: 3, depths: [8, 16] },
  3: { samples: 1, depths: [1, 2, 4, 8] },
  4: { samples: 2, depths: [8, 16] },
  6: { samples: 4, depths: [8, 16] },
};

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/**
 * The IHDR of a PNG, which must be its first chunk and its only IHDR (a second one is where a
 * decoder reading "the last IHDR" and a check reading "the first" would disagree).
 */
export function readPngHeader(bytes: Uint8Array): PngHeader {
  if (bytes.length < 8 || SIGNATURE.some((b, i) => bytes[i] !== b)) throw new DecodeFailure("undecodable_image", "not a PNG (no signature)");
  let header: PngHeader | null = null;
  let first = true;
  let idatBytes = 0;
  for (const { type, body } of pngChunks(bytes)) {
    if (type === "IHDR") {
      if (!first || body.length !== 13) throw new DecodeFailure("undecodable_image", "PNG whose IHDR is not its first chunk, or not 13 bytes");
      const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
      header = { width: view.getUint32(0), height: view.getUint32(4), depth: body[8]!, colorType: body[9]!, interlaced: body[12] === 1, idatBytes: 0 };
      const kind = PNG_COLOR_TYPES[header.colorType];
      if (!kind || !kind.depths.includes(header.depth) || body[10] !== 0 || body[11] !== 0 || body[12]! > 1) {
        throw new DecodeFailure("undecodable_image", `PNG header is invalid (colour type ${header.colorType}, depth ${header.depth})`);
      }
    } else if (first) {
      throw new DecodeFailure("undecodable_image", "PNG whose first chunk is not IHDR");
    } else if (type === "IDAT") {
      idatBytes += body.length;
    }
    first = false;
  }
  if (!header) throw new DecodeFailure("undecodable_image", "PNG without a header");
  header.idatBytes = idatBytes;
  return header;
}

/**
 * deflate (RFC 1951) spends at least 2 bits on 258 bytes: a length-258 match at distance 1, each of
 * the two a 1-bit Huffman code (the fewest bits a dynamic block's codes can have). So no zlib stream
 * inflates to more than 1032 times its size.
 */
export const DEFLATE_MAX_RATIO = 1032;

export function pngFrame(bytes: Uint8Array): FrameHeader {
  const h = readPngHeader(bytes);
  const bits = h.width * h.height * PNG_COLOR_TYPES[h.colorType]!.samples * h.depth;
  return {
    format: "PNG",
    width: h.width,
    height: h.height,
    decoded: h.width * h.height,
    dataBytes: h.idatBytes,
    minBytes: Math.floor(bits / 8 / DEFLATE_MAX_RATIO),
    bound: "deflate inflates at most 1032:1",
  };
}
