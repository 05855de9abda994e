import { convertIndexedToRgb, decode as decodePngWhole } from "fast-png";
import { ZStream, Z_BUF_ERROR, Z_NO_FLUSH, Z_OK, Z_STREAM_END, zlibInflate, zlibInflateInit } from "pako";
import { DecodeFailure, OVERVIEW_MAX_SIDE, type DecodedImage, type DecodeRequest } from "./types";
import { FrameBuilder } from "./frame";
import { checkFrame, pngChunks, pngFrame, readPngHeader, type PngHeader } from "./header";

/*
 * PNG, streamed: the IDAT chunks (views into the upload, never copied) are inflated by pako's zlib
 * stream into one reused 64 KB output buffer and unfiltered row by row into the frame builder, so
 * memory is two rows and that buffer whatever the size, and nothing is left for the garbage
 * collector. (Inflaters that hand out a fresh array per chunk, DecompressionStream or fflate's
 * streaming class, leave the inflated frame as garbage the collector has not reached yet: a 12 MP
 * PNG measured 116–183 MB of workerd's resident memory with them, 70 MB with this, the request body
 * counted in both.) Rows are produced only as the stream inflates, so a header claiming more rows
 * than the data holds costs the rows there are. Interlaced and sub-byte images (rare for
 * photographs) are decoded whole by fast-png, up to MAX_WHOLE_PIXELS and MAX_WHOLE_RAW_BYTES.
 */

export const MAX_WHOLE_PIXELS = 8_000_000;

/**
 * fast-png inflates the whole stream before it unfilters, keeping the inflated parts and their
 * concatenation (twice this) beside its pixels: its input is bounded here, and checked to inflate to
 * no more than the frame needs before fast-png sees it (the stream itself could inflate 1032:1).
 */
export const MAX_WHOLE_RAW_BYTES = 16 * 1024 * 1024;

const INFLATE_OUTPUT = 64 * 1024;

/**
 * Inflates the zlib stream split over `chunks` into one reused buffer, calling `sink(buffer, end)`
 * for each filled part, until the stream ends or `done()` says enough.
 */
function inflateInto(chunks: Uint8Array[], sink: (out: Uint8Array, end: number) => void, done: () => boolean): void {
  const strm = new ZStream();
  const out = new Uint8Array(INFLATE_OUTPUT);
  zlibInflateInit(strm);
  strm.output = out;
  for (const chunk of chunks) {
    strm.input = chunk;
    strm.next_in = 0;
    strm.avail_in = chunk.length;
    while (!done()) {
      strm.next_out = 0;
      strm.avail_out = out.length;
      const status = zlibInflate(strm, Z_NO_FLUSH);
      if (status !== Z_OK && status !== Z_STREAM_END && status !== Z_BUF_ERROR) {
        throw new DecodeFailure("undecodable_image", `PNG data is corrupt: ${strm.msg || `zlib status ${status}`}`);
      }
      sink(out, strm.next_out);
      if (status === Z_STREAM_END) return;
      // More output may be pending only when the buffer was filled; otherwise this chunk is used up.
      if (strm.avail_out !== 0) break;
    }
  }
}

type Header = PngHeader;

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

export async function decodePng(bytes: Uint8Array, request: DecodeRequest): Promise<DecodedImage> {
  checkFrame(() => pngFrame(bytes));
  const { header, palette, idat } = readChunks(bytes);
  const { width, height, depth, colorType } = header;
  if (header.interlaced || depth < 8) return decodeWhole(bytes, header, idat, request);
  const samples = CHANNELS[colorType]!;
  const bpp = (samples * depth) / 8;
  const rowBytes = width * bpp;
  const frame = new FrameBuilder(width, height, request.tiles?.(width, height) ?? [], OVERVIEW_MAX_SIDE, request.thumbnailMaxSide);
  const rgb = new Uint8Array(width * 3);
  let previous = new Uint8Array(rowBytes);
  let current = new Uint8Array(rowBytes);
  let filled = -1; // -1: expecting the filter byte
  let filter = 0;
  let y = 0;
  const emit = () => {
    unfilter(filter, current, previous, bpp);
    toRgb(current, rgb, width, colorType, depth, palette);
    frame.add({ x: 0, y, width, height: 1, channels: 3, data: rgb, stride: width * 3 });
    [previous, current] = [current, previous];
    y += 1;
  };
  const take = (out: Uint8Array, end: number) => {
    let i = 0;
    while (i < end && y < height) {
      if (filled < 0) {
        filter = out[i]!;
        i += 1;
        filled = 0;
        continue;
      }
      const n = Math.min(rowBytes - filled, end - i);
      current.set(out.subarray(i, i + n), filled);
      filled += n;
      i += n;
      if (filled === rowBytes) {
        emit();
        filled = -1;
      }
    }
  };
  inflateInto(idat, take, () => y >= height);
  if (y < height) throw new DecodeFailure("undecodable_image", `PNG data ends after ${y} of ${height} rows`);
  return frame.result();
}

/** The header (the first chunk, the only IHDR: ./header/png.ts), the palette and the image data. */
function readChunks(bytes: Uint8Array): { header: Header; palette: Uint8Array | null; idat: Uint8Array[] } {
  const header = readPngHeader(bytes);
  let palette: Uint8Array | null = null;
  const idat: Uint8Array[] = [];
  for (const { type, body } of pngChunks(bytes)) {
    if (type === "PLTE") palette = body;
    else if (type === "IDAT") idat.push(body);
  }
  if (idat.length === 0) throw new DecodeFailure("undecodable_image", "PNG without image data");
  if (header.colorType === 3 && !palette) throw new DecodeFailure("undecodable_image", "indexed PNG without a palette");
  return { header, palette, idat };
}

function unfilter(filter: number, row: Uint8Array, prev: Uint8Array, bpp: number): void {
  const n = row.length;
  switch (filter) {
    case 0:
      return;
    case 1:
      for (let i = bpp; i < n; i += 1) row[i] = (row[i]! + row[i - bpp]!) & 255;
      return;
    case 2:
      for (let i = 0; i < n; i += 1) row[i] = (row[i]! + prev[i]!) & 255;
      return;
    case 3:
      for (let i = 0; i < n; i += 1) row[i] = (row[i]! + (((i >= bpp ? row[i - bpp]! : 0) + prev[i]!) >> 1)) & 255;
      return;
    case 4:
      for (let i = 0; i < n; i += 1) {
        const a = i >= bpp ? row[i - bpp]! : 0;
        const b = prev[i]!;
        const c = i >= bpp ? prev[i - bpp]! : 0;
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        row[i] = (row[i]! + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 255;
      }
      return;
    default:
      throw new DecodeFailure("undecodable_image", `PNG row filter ${filter} is invalid`);
  }
}

/** One unfiltered row → 8-bit RGB (16-bit samples keep their high byte; alpha is ignored). */
function toRgb(row: Uint8Array, out: Uint8Array, width: number, colorType: number, depth: number, palette: Uint8Array | null): void {
  const step = depth / 8;
  const samples = CHANNELS[colorType]!;
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

/** The inflated size of a PNG's image data: a filter byte and the packed samples of each row of each pass. */
export function rawBytes({ width, height, depth, colorType, interlaced }: Header): number {
  const bits = CHANNELS[colorType]! * depth;
  const line = (w: number) => 1 + Math.ceil((w * bits) / 8);
  if (!interlaced) return height * line(width);
  // Adam7's seven passes: origin and step of each.
  const passes = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]] as const;
  return passes.reduce((sum, [x, y, dx, dy]) => {
    const w = Math.ceil((width - x) / dx);
    const h = Math.ceil((height - y) / dy);
    return w > 0 && h > 0 ? sum + h * line(w) : sum;
  }, 0);
}

function decodeWhole(bytes: Uint8Array, header: Header, idat: Uint8Array[], request: DecodeRequest): DecodedImage {
  const { width, height } = header;
  const raw = rawBytes(header);
  if (width * height > MAX_WHOLE_PIXELS || raw > MAX_WHOLE_RAW_BYTES) {
    throw new DecodeFailure("image_too_large", `interlaced or sub-byte PNG of ${width}x${height} is decoded whole, up to ${MAX_WHOLE_PIXELS / 1e6} MP and ${MAX_WHOLE_RAW_BYTES / 2 ** 20} MiB of data`);
  }
  let inflated = 0;
  inflateInto(idat, (_, end) => (inflated += end), () => inflated > raw);
  if (inflated > raw) throw new DecodeFailure("undecodable_image", `PNG data inflates beyond the ${raw} bytes its ${width}x${height} frame takes`);
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
