import { convertIndexedToRgb, decode as decodePngWhole } from "fast-png";
import { DecodeFailure, OVERVIEW_MAX_SIDE, type DecodedImage, type DecodeRequest } from "./types";
import { FrameBuilder } from "./frame";
import { checkFrame, PNG_COLOR_TYPES, pngFrame } from "./header";
import { checkWholeDecodable, readPngParts, streamRows, type PngParts } from "./png-rows";

/*
 * PNG, streamed (./png-rows.ts): the IDAT chunks (views into the upload, never copied) are inflated
 * into one reused 64 KB buffer and unfiltered row by row into the frame builder, so memory is two
 * rows and that buffer whatever the size, and nothing is left for the garbage collector. (Inflaters
 * that hand out a fresh array per chunk, DecompressionStream or fflate's streaming class, leave the
 * inflated frame as garbage the collector has not reached yet: a 12 MP PNG measured 116–183 MB of
 * workerd's resident memory with them, 70 MB with this, the request body counted in both.)
 * Interlaced and sub-byte images (rare for photographs) are decoded whole by fast-png, within
 * png-rows.ts's MAX_WHOLE_PIXELS and MAX_WHOLE_RAW_BYTES.
 */

export async function decodePng(bytes: Uint8Array, request: DecodeRequest): Promise<DecodedImage> {
  checkFrame(() => pngFrame(bytes));
  const parts = readPngParts(bytes);
  const { header, palette } = parts;
  const { width, height, depth, colorType } = header;
  if (header.interlaced || depth < 8) return decodeWhole(bytes, parts, request);
  const frame = new FrameBuilder(width, height, request.tiles?.(width, height) ?? [], OVERVIEW_MAX_SIDE, request.thumbnailMaxSide);
  const rgb = new Uint8Array(width * 3);
  streamRows(parts, (row, y) => {
    toRgb(row, rgb, width, colorType, depth, palette);
    frame.add({ x: 0, y, width, height: 1, channels: 3, data: rgb, stride: width * 3 });
  });
  return frame.result();
}

/** One unfiltered row → 8-bit RGB (16-bit samples keep their high byte; alpha is ignored). */
function toRgb(row: Uint8Array, out: Uint8Array, width: number, colorType: number, depth: number, palette: Uint8Array | null): void {
  const step = depth / 8;
  const samples = PNG_COLOR_TYPES[colorType]!.samples;
  for (let x = 0, o = 0; x < width; x += 1, o += 3) {
    const p = x * samples * step;
    if (colorType === 3) {
      const k = row[p]! * 3;
      out[o] = palette![k] ?? 0;
      out[o + 1] = palette![k + 1] ?? 0;
      out[o + 2] = palette![k + 2] ?? 0;
    } else if (samples <= 2) {
      out[o] = out[o + 1] = out[o + 2] = row[p]!;
    } else {
      out[o] = row[p]!;
      out[o + 1] = row[p + step]!;
      out[o + 2] = row[p + 2 * step]!;
    }
  }
}

function decodeWhole(bytes: Uint8Array, parts: PngParts, request: DecodeRequest): DecodedImage {
  const { width, height } = parts.header;
  checkWholeDecodable(parts);
  let png;
  try {
    png = decodePngWhole(bytes);
  } catch (err) {
    throw new DecodeFailure("undecodable_image", `PNG data is corrupt: ${String(err)}`);
  }
  let data: ArrayLike<number> = png.data;
  let channels = png.channels;
  if (png.palette) {
    data = convertIndexedToRgb(png);
    channels = png.palette[0]?.length ?? 3;
  }
  const shift = png.depth === 16 ? 8 : 0;
  const rgb = new Uint8Array(width * 3);
  const frame = new FrameBuilder(width, height, request.tiles?.(width, height) ?? [], OVERVIEW_MAX_SIDE, request.thumbnailMaxSide);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const p = (y * width + x) * channels;
      const r = data[p]! >> shift;
      rgb[x * 3] = r;
      rgb[x * 3 + 1] = channels >= 3 ? data[p + 1]! >> shift : r;
      rgb[x * 3 + 2] = channels >= 3 ? data[p + 2]! >> shift : r;
    }
    frame.add({ x: 0, y, width, height: 1, channels: 3, data: rgb, stride: width * 3 });
  }
  return frame.result();
}
