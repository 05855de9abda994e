import { DecodeFailure } from "./types";

/*
 * The frame sizes the decoders take, checked twice: by the dispatcher from the file's own header
 * before any decoder is loaded (./header), and by each decoder on the size its codec reports before
 * it allocates for the frame (a codec may read the header differently from our parser).
 */

/**
 * The most pixels a frame may have: 50 MP, counted as 50 × 2^20 = 52 428 800 so that a 50 MP
 * sensor's 8192×6144 (50.3 million) passes as well as 8160×6120. A 50 MP photo is the largest the
 * benchmarks measure within the Worker's memory and CPU (bench/RESULTS.md).
 */
export const MAX_FRAME_PIXELS = 50 * 2 ** 20;

/**
 * The longest side: JPEG's own maximum (16-bit dimensions; WebP's is 16 384). A longer side costs
 * per-row and per-column buffers of that length before a single pixel is decoded, and no camera
 * writes one.
 */
export const MAX_FRAME_SIDE = 65_535;

/**
 * Grid tiles a HEIF image may have: a 50 MP phone photo in 512×512 tiles has 192, in 256×256 tiles
 * 768. (libheif refuses more than 1000 items in a file on its own.) Each tile is a decode of its own,
 * so the count bounds the per-tile work as the pixel ceiling bounds the pixels.
 */
export const MAX_GRID_TILES = 768;

/**
 * Refuses a frame the decoders must not start on: no pixels (`undecodable_image`), a side over
 * MAX_FRAME_SIDE or more than MAX_FRAME_PIXELS pixels to decode (`image_too_large`). `decoded` is
 * the pixels the codec will produce when it differs from the frame's (a HEIF grid's tiles overhang).
 */
export function checkFrameSize(format: string, width: number, height: number, decoded = width * height): void {
  if (!(Number.isSafeInteger(width) && Number.isSafeInteger(height) && width > 0 && height > 0)) {
    throw new DecodeFailure("undecodable_image", `${format} header claims a ${width}x${height} frame: no pixels`);
  }
  if (width > MAX_FRAME_SIDE || height > MAX_FRAME_SIDE) {
    throw new DecodeFailure("image_too_large", `${format} frame of ${width}x${height} has a side over ${MAX_FRAME_SIDE} px`);
  }
  const pixels = Math.max(width * height, decoded);
  if (pixels > MAX_FRAME_PIXELS) {
    throw new DecodeFailure("image_too_large", `${format} frame of ${width}x${height} needs ${megapixels(pixels)} MP decoded, over the 50 MP ceiling (${MAX_FRAME_PIXELS} pixels)`);
  }
}

function megapixels(pixels: number): string {
  return (pixels / 1e6).toFixed(1);
}
