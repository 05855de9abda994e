import { ZStream, Z_BUF_ERROR, Z_NO_FLUSH, Z_OK, Z_STREAM_END, zlibInflate, zlibInflateInit } from "pako";
import { DecodeFailure } from "./types";
import { PNG_COLOR_TYPES, pngChunks, readPngHeader, type PngHeader } from "./header";

/*
 * What the PNG readers share (the photo decoder, ./png.ts, and the depth map reader, ./depth-png.ts):
 * the chunks, the IDAT stream inflated by pako's zlib stream into one reused 64 KB buffer and
 * unfiltered row by row, so memory is two rows and that buffer whatever the frame's size, and the
 * bounds of the few images that are decoded whole (interlaced or sub-byte).
 */

/** Interlaced and sub-byte images are decoded whole by fast-png, up to this many pixels… */
export const MAX_WHOLE_PIXELS = 8_000_000;

/**
 * …and this much inflated data: fast-png inflates the whole stream before it unfilters, keeping the
 * inflated parts and their concatenation (twice this) beside its pixels. Its input is checked to
 * inflate to no more than the frame needs before fast-png sees it (the stream itself could inflate
 * 1032:1).
 */
export const MAX_WHOLE_RAW_BYTES = 16 * 1024 * 1024;

const INFLATE_OUTPUT = 64 * 1024;

export interface PngParts {
  header: PngHeader;
  palette: Uint8Array | null;
  /** The IDAT chunks' bodies: views into the file, never copied. */
  idat: Uint8Array[];
}

/** The header (the first chunk, the only IHDR: ./header/png.ts), the palette and the image data. */
export function readPngParts(bytes: Uint8Array): PngParts {
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

/**
 * Inflates the zlib stream split over `chunks` into one reused buffer, calling `sink(buffer, end)`
 * for each filled part, until the stream ends or `done()` says enough.
 */
export function inflateInto(chunks: Uint8Array[], sink: (out: Uint8Array, end: number) => void, done: () => boolean): void {
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

/** Bytes per complete pixel (at least 1) and per row of a non-interlaced image of at least 8 bits. */
export function rowLayout({ width, depth, colorType }: PngHeader): { bpp: number; rowBytes: number } {
  const bpp = (PNG_COLOR_TYPES[colorType]!.samples * depth) / 8;
  return { bpp, rowBytes: width * bpp };
}

/**
 * Streams the rows of a non-interlaced PNG of at least 8 bits a sample: each unfiltered row (a view
 * reused for the next one) goes to `onRow` as soon as the stream has inflated it. Rows are produced
 * only as the stream inflates, so a header claiming more rows than the data holds costs the rows
 * there are; then it throws.
 */
export function streamRows({ header, idat }: PngParts, onRow: (row: Uint8Array, y: number) => void): void {
  const { height } = header;
  const { bpp, rowBytes } = rowLayout(header);
  let previous = new Uint8Array(rowBytes);
  let current = new Uint8Array(rowBytes);
  let filled = -1; // -1: expecting the filter byte
  let filter = 0;
  let y = 0;
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
        unfilter(filter, current, previous, bpp);
        onRow(current, y);
        [previous, current] = [current, previous];
        y += 1;
        filled = -1;
      }
    }
  };
  inflateInto(idat, take, () => y >= height);
  if (y < height) throw new DecodeFailure("undecodable_image", `PNG data ends after ${y} of ${height} rows`);
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

/** The inflated size of a PNG's image data: a filter byte and the packed samples of each row of each pass. */
export function rawBytes({ width, height, depth, colorType, interlaced }: PngHeader): number {
  const bits = PNG_COLOR_TYPES[colorType]!.samples * depth;
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

/**
 * Refuses what may not be decoded whole: over MAX_WHOLE_PIXELS or MAX_WHOLE_RAW_BYTES
 * (`image_too_large`), or a stream that inflates to more than its frame takes (`undecodable_image`),
 * found by inflating it into the reused buffer first.
 */
export function checkWholeDecodable({ header, idat }: PngParts): void {
  const { width, height } = header;
  const raw = rawBytes(header);
  if (width * height > MAX_WHOLE_PIXELS || raw > MAX_WHOLE_RAW_BYTES) {
    throw new DecodeFailure("image_too_large", `interlaced or sub-byte PNG of ${width}x${height} is decoded whole, up to ${MAX_WHOLE_PIXELS / 1e6} MP and ${MAX_WHOLE_RAW_BYTES / 2 ** 20} MiB of data`);
  }
  let inflated = 0;
  inflateInto(idat, (_, end) => (inflated += end), () => inflated > raw);
  if (inflated > raw) throw new DecodeFailure("undecodable_image", `PNG data inflates beyond the ${raw} bytes its ${width}x${height} frame takes`);
}
