import type { Luma, Rect, Thumbnail, Tile } from "./types";

/*
 * Builds the decoder output (overview, tiles, thumbnail) from pixels fed in blocks (a band of rows,
 * or one tile of a HEIF grid), so no decoder ever needs the whole frame at native resolution.
 */

/** Rec. 601 luma of one pixel. */
function luma601(r: number, g: number, b: number): number {
  return (77 * r + 150 * g + 29 * b + 128) >> 8;
}

/**
 * A block of pixels: `channels` interleaved 8-bit samples (1 gray, 3 RGB, 4 RGBA), rows `stride`
 * apart (negative for rows stored bottom-up), the first row at `offset`.
 */
export interface Block {
  x: number;
  y: number;
  width: number;
  height: number;
  channels: 1 | 3 | 4;
  data: Uint8Array;
  offset?: number;
  stride: number;
}

/** The size a `width`×`height` frame reduced to a longest side of at most `maxSide` gets (AreaReducer's output). */
export function reducedSize(width: number, height: number, maxSide: number): { width: number; height: number } {
  const factor = Math.max(1, Math.max(width, height) / maxSide);
  return { width: Math.max(1, Math.round(width / factor)), height: Math.max(1, Math.round(height / factor)) };
}

/**
 * Area-average reduction of a `width`×`height` image to a longest side of at most `maxSide`. The
 * mapping is separable, so a cell's pixel count is its column count times its row count (no count
 * array), and sums are 16-bit whenever a cell holds at most 257 pixels (any reduction by 16 or less).
 */
export class AreaReducer {
  readonly outWidth: number;
  readonly outHeight: number;
  private readonly sums: Uint16Array | Uint32Array;
  private readonly colX: Uint32Array;
  private readonly colCount: Uint32Array;
  private readonly rowCount: Uint32Array;

  constructor(
    readonly width: number,
    readonly height: number,
    maxSide: number,
    private readonly channels: 1 | 3,
  ) {
    const out = reducedSize(width, height, maxSide);
    this.outWidth = out.width;
    this.outHeight = out.height;
    this.colX = new Uint32Array(width);
    this.colCount = new Uint32Array(this.outWidth);
    this.rowCount = new Uint32Array(this.outHeight);
    for (let x = 0; x < width; x += 1) {
      const ox = Math.min(this.outWidth - 1, Math.floor((x * this.outWidth) / width));
      this.colX[x] = ox;
      this.colCount[ox]! += 1;
    }
    for (let y = 0; y < height; y += 1) this.rowCount[this.rowOf(y)]! += 1;
    const cells = this.outWidth * this.outHeight * channels;
    const most = Math.max(...this.colCount) * Math.max(...this.rowCount);
    this.sums = most * 255 <= 0xffff ? new Uint16Array(cells) : new Uint32Array(cells);
  }

  private rowOf(y: number): number {
    return Math.min(this.outHeight - 1, Math.floor((y * this.outHeight) / this.height));
  }

  add(block: Block): void {
    const { sums, colX, channels } = this;
    const src = block.data;
    const bc = block.channels;
    const offset = block.offset ?? 0;
    const end = Math.min(block.width, this.width - block.x);
    // One loop per channel layout: the per-pixel branches otherwise cost as much as the sums.
    for (let row = 0; row < block.height; row += 1) {
      const y = block.y + row;
      if (y >= this.height) break;
      const base = this.rowOf(y) * this.outWidth;
      let p = offset + row * block.stride;
      if (channels === 1 && bc === 1) {
        for (let col = 0; col < end; col += 1, p += 1) sums[base + colX[block.x + col]!]! += src[p]!;
      } else if (channels === 1) {
        for (let col = 0; col < end; col += 1, p += bc) sums[base + colX[block.x + col]!]! += luma601(src[p]!, src[p + 1]!, src[p + 2]!);
      } else if (bc === 1) {
        for (let col = 0; col < end; col += 1, p += 1) {
          const t = (base + colX[block.x + col]!) * 3;
          const v = src[p]!;
          sums[t]! += v;
          sums[t + 1]! += v;
          sums[t + 2]! += v;
        }
      } else {
        for (let col = 0; col < end; col += 1, p += bc) {
          const t = (base + colX[block.x + col]!) * 3;
          sums[t]! += src[p]!;
          sums[t + 1]! += src[p + 1]!;
          sums[t + 2]! += src[p + 2]!;
        }
      }
    }
  }

  result(): { width: number; height: number; data: Uint8Array } {
    const { sums, channels, outWidth, outHeight, rowCount, colCount } = this;
    const data = new Uint8Array(sums.length);
    for (let oy = 0; oy < outHeight; oy += 1) {
      const rows = rowCount[oy]!;
      let t = oy * outWidth * channels;
      for (let ox = 0; ox < outWidth; ox += 1) {
        const c = rows * colCount[ox]! || 1;
        if (c === 1) {
          for (let k = 0; k < channels; k += 1, t += 1) data[t] = sums[t]!;
        } else {
          for (let k = 0; k < channels; k += 1, t += 1) data[t] = Math.round(sums[t]! / c);
        }
      }
    }
    return { width: outWidth, height: outHeight, data };
  }
}

/** Copies the requested native-resolution regions out of the blocks that cross them (as luma). */
export class TileCollector {
  private readonly tiles: Tile[];

  constructor(width: number, height: number, rects: Rect[]) {
    this.tiles = rects.map((rect) => {
      const x = Math.max(0, Math.min(width - 1, rect.x));
      const y = Math.max(0, Math.min(height - 1, rect.y));
      const w = Math.max(0, Math.min(rect.width, width - x));
      const h = Math.max(0, Math.min(rect.height, height - y));
      return { x, y, width: w, height: h, data: new Uint8Array(w * h) };
    });
  }

  /** The tiles' regions, clamped to the frame. */
  get regions(): Rect[] {
    return this.tiles.map(({ x, y, width, height }) => ({ x, y, width, height }));
  }

  /** The lowest row any tile needs (exclusive): decoders may stop there. */
  get bottom(): number {
    return this.tiles.reduce((max, t) => Math.max(max, t.y + t.height), 0);
  }

  add(block: Block): void {
    for (const tile of this.tiles) {
      const x0 = Math.max(tile.x, block.x);
      const x1 = Math.min(tile.x + tile.width, block.x + block.width);
      const y0 = Math.max(tile.y, block.y);
      const y1 = Math.min(tile.y + tile.height, block.y + block.height);
      if (x0 >= x1 || y0 >= y1) continue;
      for (let y = y0; y < y1; y += 1) {
        let p = (block.offset ?? 0) + (y - block.y) * block.stride + (x0 - block.x) * block.channels;
        let q = (y - tile.y) * tile.width + (x0 - tile.x);
        for (let x = x0; x < x1; x += 1, p += block.channels, q += 1) {
          tile.data[q] = block.channels === 1 ? block.data[p]! : luma601(block.data[p]!, block.data[p + 1]!, block.data[p + 2]!);
        }
      }
    }
  }

  result(): Tile[] {
    return this.tiles;
  }
}

/**
 * The overview and the thumbnail from one decode of the whole frame at reduced scale (a DCT-scaled
 * JPEG, libwebp's rescaler): the block covers the frame at its own, smaller size. Read at once, so
 * the decoder can free the block's memory before it decodes the tiles.
 */
export function overviewAndThumbnail(reduced: Block, overviewMaxSide: number, thumbnailMaxSide: number | undefined): { overview: Luma; thumbnail: Thumbnail | null } {
  const overview = new AreaReducer(reduced.width, reduced.height, overviewMaxSide, 1);
  overview.add(reduced);
  if (thumbnailMaxSide && reduced.channels === 3 && Math.max(reduced.width, reduced.height) <= thumbnailMaxSide) {
    // The reduced frame already fits: its RGB is the thumbnail (a reducer would hold 16-bit sums of it).
    return { overview: overview.result(), thumbnail: copyRgb(reduced) };
  }
  const thumbnail = thumbnailMaxSide ? new AreaReducer(reduced.width, reduced.height, thumbnailMaxSide, 3) : null;
  thumbnail?.add(reduced);
  return { overview: overview.result(), thumbnail: thumbnail ? asThumbnail(thumbnail) : null };
}

function copyRgb(block: Block): Thumbnail {
  const rgb = new Uint8Array(block.width * block.height * 3);
  for (let y = 0; y < block.height; y += 1) {
    const from = (block.offset ?? 0) + y * block.stride;
    rgb.set(block.data.subarray(from, from + block.width * 3), y * block.width * 3);
  }
  return { width: block.width, height: block.height, rgb };
}

function asThumbnail(reducer: AreaReducer): Thumbnail {
  const t = reducer.result();
  return { width: t.width, height: t.height, rgb: t.data };
}

/** Everything a streaming decoder feeds: overview, tiles and (optionally) thumbnail in one pass. */
export class FrameBuilder {
  private readonly overview: AreaReducer;
  private readonly thumbnail: AreaReducer | null;
  readonly tiles: TileCollector;

  constructor(
    readonly width: number,
    readonly height: number,
    rects: Rect[],
    overviewMaxSide: number,
    thumbnailMaxSide: number | undefined,
  ) {
    this.overview = new AreaReducer(width, height, overviewMaxSide, 1);
    this.thumbnail = thumbnailMaxSide ? new AreaReducer(width, height, thumbnailMaxSide, 3) : null;
    this.tiles = new TileCollector(width, height, rects);
  }

  add(block: Block): void {
    this.overview.add(block);
    this.thumbnail?.add(block);
    this.tiles.add(block);
  }

  result(): { width: number; height: number; overview: Luma; tiles: Tile[]; thumbnail: Thumbnail | null } {
    return {
      width: this.width,
      height: this.height,
      overview: this.overview.result(),
      tiles: this.tiles.result(),
      thumbnail: this.thumbnail ? asThumbnail(this.thumbnail) : null,
    };
  }
}
