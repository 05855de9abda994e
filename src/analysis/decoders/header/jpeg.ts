import { DecodeFailure } from "../types";
import type { FrameHeader } from "./frame-header";

export interface JpegLayout {
  /** Where the frame header's marker (0xFF SOFn) sits: the decoders patch its height. */
  sofOffset: number;
  progressive: boolean;
  /** Arithmetic-coded (SOF9–SOF15): no lower bound on the bits a block takes. */
  arithmetic: boolean;
  width: number;
  height: number;
  components: Array<{ h: number; v: number }>;
}

/** Finds the frame header (SOFn) among the segments before the first scan; null when there is none. */
export function frameLayout(bytes: Uint8Array): JpegLayout | null {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  let i = 2;
  while (i + 4 <= bytes.length) {
    if (bytes[i] !== 0xff) return null;
    const marker = bytes[i + 1]!;
    if (marker === 0xff) {
      i += 1;
      continue;
    }
    const length = (bytes[i + 2]! << 8) | bytes[i + 3]!;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const count = bytes[i + 9] ?? 0;
      const components = [];
      for (let c = 0; c < count && i + 13 + c * 3 <= bytes.length; c += 1) {
        const hv = bytes[i + 11 + c * 3]!;
        components.push({ h: hv >> 4, v: hv & 15 });
      }
      const height = ((bytes[i + 5] ?? 0) << 8) | (bytes[i + 6] ?? 0);
      const width = ((bytes[i + 7] ?? 0) << 8) | (bytes[i + 8] ?? 0);
      return { sofOffset: i, progressive: (marker & 3) === 2, arithmetic: marker >= 0xc9, width, height, components };
    }
    if (marker === 0xda || marker === 0xd9) return null;
    i += 2 + length;
  }
  return null;
}

/**
 * The fewest bits a Huffman-coded frame can take: every 8×8 block of every component carries at
 * least one Huffman-coded symbol (its DC difference, in a baseline scan or a progressive frame's
 * first DC scan), and a Huffman code is at least one bit. An arithmetic coder can spend far less
 * than a bit on a block, so arithmetic-coded frames have no bound here.
 */
function minimumBits(layout: JpegLayout): number {
  if (layout.arithmetic) return 0;
  const maxH = Math.max(1, ...layout.components.map((c) => c.h));
  const maxV = Math.max(1, ...layout.components.map((c) => c.v));
  return layout.components.reduce((sum, c) => sum + Math.ceil((layout.width * c.h) / (8 * maxH)) * Math.ceil((layout.height * c.v) / (8 * maxV)), 0);
}

export function jpegFrame(bytes: Uint8Array): FrameHeader {
  const layout = frameLayout(bytes);
  if (!layout) throw new DecodeFailure("undecodable_image", "JPEG without a frame header");
  const valid = layout.components.length > 0 && layout.components.every((c) => c.h >= 1 && c.h <= 4 && c.v >= 1 && c.v <= 4);
  if (!valid) throw new DecodeFailure("undecodable_image", "JPEG frame header without valid components");
  return {
    format: "JPEG",
    width: layout.width,
    height: layout.height,
    decoded: layout.width * layout.height,
    dataBytes: bytes.length,
    minBytes: Math.ceil(minimumBits(layout) / 8),
    bound: layout.arithmetic ? "arithmetic coding: no bound" : "at least one bit per 8x8 block",
  };
}
