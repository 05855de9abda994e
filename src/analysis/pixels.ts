import jpeg from "jpeg-js";
import { convertIndexedToRgb, decode as decodePng } from "fast-png";

/** 8-bit luma at full resolution: what the pixel signals (moiré, perceptual hash) work on. */
export interface Luma {
  width: number;
  height: number;
  data: Uint8Array;
}

/** A small RGB copy (longest side ≤ `maxSide`) for vision providers. */
export interface Thumbnail {
  width: number;
  height: number;
  rgb: Uint8Array;
}

/** A region of the image in native pixel coordinates. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A native-resolution crop of the luma; `x`, `y` place it in the whole image. */
export interface Tile extends Luma {
  x: number;
  y: number;
}

export interface DecodeRequest {
  /** The native-resolution regions the caller needs, chosen from the image's dimensions. */
  tiles?: (width: number, height: number) => Rect[];
  /** Also produce an RGB copy whose longest side is at most this. */
  thumbnailMaxSide?: number;
}

/**
 * What the signals work on. Global signals (perceptual hashes) read the reduced-scale `overview`;
 * signals that need the sensor's own pixel lattice (moiré) read native-resolution `tiles`. No signal
 * may assume the whole image at native resolution is in memory: a 50 MP photo does not fit a Worker.
 */
export interface DecodedImage {
  /** Native dimensions. */
  width: number;
  height: number;
  /** The whole frame, area-averaged to a longest side of at most OVERVIEW_MAX_SIDE. */
  overview: Luma;
  tiles: Tile[];
  thumbnail: Thumbnail | null;
}

export const OVERVIEW_MAX_SIDE = 1024;

/**
 * Images larger than this are not decoded. Decoding holds about 7 bytes per pixel at its peak
 * (jpeg-js component planes 3, RGB output 3, luma 1): 12 MP ≈ 84 MB, 16 MP ≈ 112 MB, against the
 * 128 MB of a Worker isolate. Larger images get `pixels_unavailable` (docs/signals.md).
 */
export const MAX_DECODE_MEGAPIXELS = 16;

/**
 * Decodes JPEG (jpeg-js, pure JS) and PNG (fast-png) into the overview, the requested tiles and an
 * optional thumbnail. WebP and HEIC/HEIF have no decoder here yet: they return null and the pixel
 * signals report `pixels_unavailable`.
 */
export async function decodeImage(bytes: Uint8Array, mediaType: string, request: DecodeRequest = {}): Promise<DecodedImage | null> {
  let width: number;
  let height: number;
  let channels: number;
  let data: ArrayLike<number>;
  let scale = 1;
  if (mediaType === "image/jpeg") {
    const image = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: false, maxResolutionInMP: MAX_DECODE_MEGAPIXELS, maxMemoryUsageInMB: 256 });
    ({ width, height, data } = image);
    channels = 3;
  } else if (mediaType === "image/png") {
    const png = decodePng(bytes);
    ({ width, height } = png);
    if (width * height > MAX_DECODE_MEGAPIXELS * 1_000_000) throw new Error(`image of ${width}x${height} exceeds the decode limit`);
    if (png.palette) {
      data = convertIndexedToRgb(png);
      channels = png.palette[0]?.length ?? 3;
    } else {
      data = png.data;
      channels = png.channels;
      if (png.depth === 16) scale = 1 / 257;
    }
  } else {
    return null;
  }
  const luma: Luma = { width, height, data: toLuma(width, height, channels, data, scale) };
  return {
    width,
    height,
    overview: downscaleLuma(luma, OVERVIEW_MAX_SIDE),
    tiles: (request.tiles?.(width, height) ?? []).map((rect) => cropLuma(luma, rect)),
    thumbnail: request.thumbnailMaxSide ? makeThumbnail(width, height, channels, data, scale, request.thumbnailMaxSide) : null,
  };
}

function cropLuma(luma: Luma, rect: Rect): Tile {
  const x = Math.max(0, Math.min(luma.width - 1, rect.x));
  const y = Math.max(0, Math.min(luma.height - 1, rect.y));
  const width = Math.min(rect.width, luma.width - x);
  const height = Math.min(rect.height, luma.height - y);
  const data = new Uint8Array(width * height);
  for (let row = 0; row < height; row += 1) data.set(luma.data.subarray((y + row) * luma.width + x, (y + row) * luma.width + x + width), row * width);
  return { x, y, width, height, data };
}

/** Area-average downscale (a copy when already small enough). */
export function downscaleLuma(luma: Luma, maxSide: number): Luma {
  const factor = Math.max(1, Math.max(luma.width, luma.height) / maxSide);
  if (factor === 1) return { width: luma.width, height: luma.height, data: luma.data.slice() };
  const width = Math.max(1, Math.round(luma.width / factor));
  const height = Math.max(1, Math.round(luma.height / factor));
  const sums = new Float64Array(width * height);
  const counts = new Uint32Array(width * height);
  for (let y = 0; y < luma.height; y += 1) {
    const ty = Math.min(height - 1, Math.floor(y / factor));
    for (let x = 0; x < luma.width; x += 1) {
      const t = ty * width + Math.min(width - 1, Math.floor(x / factor));
      sums[t] = sums[t]! + luma.data[y * luma.width + x]!;
      counts[t]! += 1;
    }
  }
  const data = new Uint8Array(width * height);
  for (let t = 0; t < data.length; t += 1) data[t] = Math.round(sums[t]! / Math.max(1, counts[t]!));
  return { width, height, data };
}

/** Rec. 601 luma; gray and gray+alpha pass through, alpha is ignored. */
function toLuma(width: number, height: number, channels: number, data: ArrayLike<number>, scale: number): Uint8Array {
  const n = width * height;
  const out = new Uint8Array(n);
  if (channels <= 2) {
    for (let i = 0; i < n; i += 1) out[i] = data[i * channels]! * scale;
    return out;
  }
  for (let i = 0, p = 0; i < n; i += 1, p += channels) {
    out[i] = (0.299 * data[p]! + 0.587 * data[p + 1]! + 0.114 * data[p + 2]!) * scale;
  }
  return out;
}

/** Box-filtered downscale to RGB (area average), so the vision model sees the whole frame. */
function makeThumbnail(width: number, height: number, channels: number, data: ArrayLike<number>, scale: number, maxSide: number): Thumbnail {
  const factor = Math.max(1, Math.max(width, height) / maxSide);
  const tw = Math.max(1, Math.round(width / factor));
  const th = Math.max(1, Math.round(height / factor));
  const sums = new Float64Array(tw * th * 3);
  const counts = new Uint32Array(tw * th);
  for (let y = 0; y < height; y += 1) {
    const ty = Math.min(th - 1, Math.floor(y / factor));
    for (let x = 0; x < width; x += 1) {
      const t = ty * tw + Math.min(tw - 1, Math.floor(x / factor));
      const p = (y * width + x) * channels;
      const r = data[p]!;
      const g = channels >= 3 ? data[p + 1]! : r;
      const b = channels >= 3 ? data[p + 2]! : r;
      sums[t * 3] = sums[t * 3]! + r;
      sums[t * 3 + 1] = sums[t * 3 + 1]! + g;
      sums[t * 3 + 2] = sums[t * 3 + 2]! + b;
      counts[t]! += 1;
    }
  }
  const rgb = new Uint8Array(tw * th * 3);
  for (let t = 0; t < tw * th; t += 1) {
    const c = counts[t]! || 1;
    for (let k = 0; k < 3; k += 1) rgb[t * 3 + k] = (sums[t * 3 + k]! / c) * scale;
  }
  return { width: tw, height: th, rgb };
}

/** JPEG bytes of a thumbnail (jpeg-js encode; needs `nodejs_compat` for its Buffer use). */
export function encodeThumbnailJpeg(thumbnail: Thumbnail, quality = 85): Uint8Array {
  const rgba = new Uint8Array(thumbnail.width * thumbnail.height * 4);
  for (let i = 0, j = 0; i < thumbnail.rgb.length; i += 3, j += 4) {
    rgba[j] = thumbnail.rgb[i]!;
    rgba[j + 1] = thumbnail.rgb[i + 1]!;
    rgba[j + 2] = thumbnail.rgb[i + 2]!;
    rgba[j + 3] = 255;
  }
  return new Uint8Array(jpeg.encode({ width: thumbnail.width, height: thumbnail.height, data: rgba }, quality).data);
}
