import { readPngParts, streamRows } from "../decoders/png-rows";
import { DecodeFailure } from "../decoders/types";

/*
 * A burst's PNG film strip (client/capture-page/integrity/png-strip.ts writes it): `count` greyscale
 * tiles of `width` × `height`, stacked top to bottom. Only that exact shape is read: 8-bit
 * greyscale, not interlaced, its size the declared one, so the rows streamed out (decoders/png-rows.ts:
 * never more than the header's, whatever the stream would inflate to) are bounded before a byte is
 * inflated.
 */

/** The strip's tiles, each `width` × `height` bytes; throws DecodeFailure for anything else. */
export function readGreyStrip(bytes: Uint8Array, width: number, height: number, count: number): Uint8Array[] {
  const parts = readPngParts(bytes);
  const h = parts.header;
  if (h.depth !== 8 || h.colorType !== 0 || h.interlaced) {
    throw new DecodeFailure("undecodable_image", `a burst strip is an 8-bit greyscale PNG, not interlaced (got ${h.depth}-bit, colour type ${h.colorType}${h.interlaced ? ", interlaced" : ""})`);
  }
  if (h.width !== width || h.height !== height * count) {
    throw new DecodeFailure("undecodable_image", `the strip is ${h.width}x${h.height}, not ${count} tiles of ${width}x${height}`);
  }
  const pixels = new Uint8Array(width * height * count);
  streamRows(parts, (row, y) => pixels.set(row, y * width));
  return Array.from({ length: count }, (_, i) => pixels.subarray(i * width * height, (i + 1) * width * height));
}
