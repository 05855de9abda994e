/*
 * The reduced video frame, as the capture page keeps it (client/capture-page/integrity/frames.ts)
 * and the service measures it (analysis/burst/measures.ts): one definition for both. The page bundles this module,
 * so it imports nothing heavier than the burst's bounds.
 */
import { BURST_LIMITS } from "../../schemas/burst-limits";

/** The native-resolution centre patches' side, in pixels. */
export const PATCH_SIDE: number = BURST_LIMITS.patchSide;

export interface GreyFrame {
  /** Milliseconds (any clock, the same for every frame). */
  t: number;
  width: number;
  height: number;
  /** The reduced frame, one byte per pixel, row by row. */
  luma: Uint8Array;
}

/** Standard deviation of a frame's reduced pixels: under FLAT_FRAME_STD it shows nothing (lens covered, blown out). */
export const FLAT_FRAME_STD = 1.5;
export function frameStd(luma: Uint8Array): number {
  let sum = 0;
  let sq = 0;
  for (let i = 0; i < luma.length; i += 1) {
    sum += luma[i]!;
    sq += luma[i]! * luma[i]!;
  }
  const mean = sum / luma.length;
  return Math.sqrt(Math.max(0, sq / luma.length - mean * mean));
}
