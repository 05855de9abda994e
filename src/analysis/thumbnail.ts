import { sha256Hex } from "../lib/crypto";
import { putEvidence, thumbnailKeyFor } from "../storage/evidence";
import { encodeJpeg } from "./jpeg-encoder";
import type { Thumbnail } from "./decoders";
import { log } from "../lib/log";
import exifr, { exifSourceOf } from "./exif-reader";

/** Longest side of the evidence thumbnail served by the captures API. */
export const EVIDENCE_THUMBNAIL_MAX_SIDE = 480;
const JPEG_QUALITY = 80;

export interface EncodedThumbnail {
  jpeg: Uint8Array;
  width: number;
  height: number;
}

/**
 * The evidence thumbnail from the RGB thumbnail the analysis already decoded: fitted to 480 px on
 * its longest side (area average) and turned upright by the original's EXIF orientation, because
 * a bare JPEG carries no orientation and viewers show the original rotated.
 */
export async function evidenceThumbnail(decoded: Thumbnail, original: Uint8Array): Promise<EncodedThumbnail> {
  const fitted = fit(decoded, EVIDENCE_THUMBNAIL_MAX_SIDE);
  const upright = orient(fitted, await exifOrientation(original));
  return { jpeg: encodeThumbnailJpeg(upright, JPEG_QUALITY), width: upright.width, height: upright.height };
}

/** Where the evidence thumbnail of a capture went (capture_analyses.thumbnail). */
export interface StoredThumbnail {
  key: string;
  sha256: string;
  width: number;
  height: number;
}

/**
 * Writes the capture's evidence thumbnail next to it (deterministic key, so a repeated analysis
 * rewrites the same object). A thumbnail is a convenience: any failure leaves it absent (the
 * captures API says so) and never fails or delays the analysis.
 */
export async function storeEvidenceThumbnail(
  bucket: R2Bucket,
  capture: { id: string; verificationId: string },
  decoded: Thumbnail,
  original: Uint8Array,
): Promise<StoredThumbnail | null> {
  try {
    const { jpeg, width, height } = await evidenceThumbnail(decoded, original);
    const key = thumbnailKeyFor(capture.verificationId, capture.id);
    const sha256 = await sha256Hex(jpeg);
    await putEvidence(bucket, key, jpeg, "image/jpeg", sha256);
    return { key, sha256, width, height };
  } catch (err) {
    log.error({ msg: "evidence thumbnail not written", capture_id: capture.id, error: String(err) });
    return null;
  }
}

async function exifOrientation(bytes: Uint8Array): Promise<number> {
  try {
    const source = exifSourceOf(bytes);
    if (!source) return 1;
    const value: unknown = await exifr.orientation(source);
    return typeof value === "number" && value >= 1 && value <= 8 ? value : 1;
  } catch {
    return 1;
  }
}

/** Area-average downscale so the longest side is at most `maxSide` (never upscales). */
export function fit(image: Thumbnail, maxSide: number): Thumbnail {
  const factor = Math.max(image.width, image.height) / maxSide;
  if (factor <= 1) return image;
  const width = Math.max(1, Math.round(image.width / factor));
  const height = Math.max(1, Math.round(image.height / factor));
  // Integer sums: at most 255 times the pixels of a cell, far within 32 bits.
  const sums = new Uint32Array(width * height * 3);
  const counts = new Uint32Array(width * height);
  for (let y = 0; y < image.height; y += 1) {
    const row = Math.min(height - 1, Math.floor((y * height) / image.height)) * width;
    for (let x = 0; x < image.width; x += 1) {
      const t = row + Math.min(width - 1, Math.floor((x * width) / image.width));
      const p = (y * image.width + x) * 3;
      sums[t * 3] = sums[t * 3]! + image.rgb[p]!;
      sums[t * 3 + 1] = sums[t * 3 + 1]! + image.rgb[p + 1]!;
      sums[t * 3 + 2] = sums[t * 3 + 2]! + image.rgb[p + 2]!;
      counts[t]! += 1;
    }
  }
  const rgb = new Uint8Array(width * height * 3);
  for (let t = 0; t < width * height; t += 1) {
    const n = counts[t]! || 1;
    rgb[t * 3] = Math.round(sums[t * 3]! / n);
    rgb[t * 3 + 1] = Math.round(sums[t * 3 + 1]! / n);
    rgb[t * 3 + 2] = Math.round(sums[t * 3 + 2]! / n);
  }
  return { width, height, rgb };
}

/** Applies an EXIF orientation (1..8): the pixels as a viewer honouring the tag would show them. */
export function orient(image: Thumbnail, orientation: number): Thumbnail {
  if (orientation === 1) return image;
  const { width: w, height: h } = image;
  const swaps = orientation >= 5;
  const width = swaps ? h : w;
  const height = swaps ? w : h;
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const [sx, sy] = storedPosition(orientation, x, y, w, h);
      const from = (sy * w + sx) * 3;
      const to = (y * width + x) * 3;
      rgb[to] = image.rgb[from]!;
      rgb[to + 1] = image.rgb[from + 1]!;
      rgb[to + 2] = image.rgb[from + 2]!;
    }
  }
  return { width, height, rgb };
}

/** Where the displayed pixel (x, y) sits in a stored image of w×h with that EXIF orientation. */
function storedPosition(orientation: number, x: number, y: number, w: number, h: number): [number, number] {
  switch (orientation) {
    case 2: return [w - 1 - x, y];
    case 3: return [w - 1 - x, h - 1 - y];
    case 4: return [x, h - 1 - y];
    case 5: return [y, x];
    case 6: return [y, h - 1 - x];
    case 7: return [w - 1 - y, h - 1 - x];
    case 8: return [w - 1 - y, x];
    default: return [x, y];
  }
}

/** JPEG bytes of a thumbnail (baseline 4:2:0, ./jpeg-encoder.ts). */
export function encodeThumbnailJpeg(thumbnail: Thumbnail, quality = 85): Uint8Array {
  return encodeJpeg(thumbnail.rgb, thumbnail.width, thumbnail.height, quality);
}
