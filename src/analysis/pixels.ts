import jpeg from "jpeg-js";

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

/** A decode that could not produce pixels, and why (the signals that need pixels report the reason). */
export class DecodeFailure extends Error {
  override name = "DecodeFailure";
  constructor(
    readonly reason: "undecodable_image" | "image_too_large",
    message: string,
  ) {
    super(message);
  }
}

/**
 * Decodes the capture in the Worker: JPEG (libjpeg-turbo), PNG (streamed), WebP (libwebp) and
 * HEIC/HEIF (libheif), each codec loaded on first use. No path holds a whole frame at native
 * resolution except libjpeg's coefficients of a small progressive JPEG (a larger one keeps its DC
 * values and the tiles' blocks only); measured peaks are in docs/signals.md.
 * Throws DecodeFailure (`undecodable_image` or `image_too_large`) when there are no pixels.
 */
export async function decodeImage(bytes: Uint8Array, mediaType: string, request: DecodeRequest = {}): Promise<DecodedImage> {
  switch (mediaType) {
    case "image/jpeg":
      return (await import("./decoders/jpeg")).decodeJpeg(bytes, request);
    case "image/png":
      return (await import("./decoders/png")).decodePng(bytes, request);
    case "image/webp":
      return (await import("./decoders/webp")).decodeWebp(bytes, request);
    case "image/heic":
    case "image/heif":
      return (await import("./decoders/heif")).decodeHeif(bytes, request);
    default:
      throw new DecodeFailure("undecodable_image", `no decoder for ${mediaType}`);
  }
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
