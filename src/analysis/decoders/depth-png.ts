import { decode as decodePngWhole } from "fast-png";
import { checkFrame, pngFrame } from "./header";
import { checkWholeDecodable, readPngParts, streamRows } from "./png-rows";
import { DecodeFailure } from "./types";

/*
 * The forensic buffer (a depth map: a 16-bit grayscale PNG in millimetres, 0 = unknown) is an
 * untrusted image like the photo: the same header check (./header: signature, one IHDR first, the
 * 50 MP and side ceilings, the deflate bound against the IDAT's size) runs before anything is
 * inflated, and its rows are streamed (./png-rows.ts), never inflated whole, so reading a map costs
 * two rows of memory whatever its size. An interlaced map is decoded whole within the photos' bounds
 * for that (png-rows.ts's MAX_WHOLE_*).
 */

/** A depth map's rows, visited in order as often as the reader needs (each visit streams the file again). */
export interface DepthRows {
  width: number;
  height: number;
  /** Calls `visit` with each row's depths (a view valid during the call only). */
  each(visit: (row: Uint16Array, y: number) => void): void;
}

/** Throws DecodeFailure (`undecodable_image`, `image_too_large`) for anything but a readable 16-bit grayscale PNG. */
export function depthPngRows(bytes: Uint8Array): DepthRows {
  checkFrame(() => pngFrame(bytes));
  const parts = readPngParts(bytes);
  const { width, height, depth, colorType, interlaced } = parts.header;
  if (depth !== 16 || colorType !== 0) {
    throw new DecodeFailure("undecodable_image", `a depth map must be a 16-bit grayscale PNG (got ${depth}-bit, colour type ${colorType})`);
  }
  if (interlaced) {
    checkWholeDecodable(parts);
    let data: Uint16Array;
    try {
      data = decodePngWhole(bytes).data as Uint16Array;
    } catch (err) {
      throw new DecodeFailure("undecodable_image", `PNG data is corrupt: ${String(err)}`);
    }
    return { width, height, each: (visit) => { for (let y = 0; y < height; y += 1) visit(data.subarray(y * width, (y + 1) * width), y); } };
  }
  const depths = new Uint16Array(width);
  return {
    width,
    height,
    each: (visit) =>
      streamRows(parts, (row, y) => {
        for (let x = 0; x < width; x += 1) depths[x] = (row[2 * x]! << 8) | row[2 * x + 1]!;
        visit(depths, y);
      }),
  };
}
