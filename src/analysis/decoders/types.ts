/** What every decoder produces and the dispatcher (./index.ts) hands to the signals. */

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
