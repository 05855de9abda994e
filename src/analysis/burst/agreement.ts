import { AreaReducer } from "../decoders/frame";
import type { Luma } from "../decoders/types";
import type { GreyFrame } from "./measures";
import { correlationAt } from "./correlation";
import { spread } from "./texture";

/*
 * Does the photo belong to the burst? The capture page's photo is the video frame on screen at the
 * shutter, drawn once (client/capture-page/camera.ts#stillOf), and that drawing leads the burst's
 * patches and is among its frames, so the photo reduced to the burst's frame size matches the
 * burst's frames at the shutter. Real footage of another scene sent beside a photo does not. The
 * score is the best normalised cross-correlation of the reduced photo with a frame within
 * SHUTTER_WINDOW_MS of the press, over integer shifts of up to SHIFT px (the two reductions differ
 * by a fraction of a pixel).
 */

export const SHUTTER_WINDOW_MS = 150;
const SHIFT = 2;
/** A reduced photo whose pixels vary less than this (std, grey levels) has too little in it to compare. */
export const MIN_AGREEMENT_STD = 4;
/** Aspect ratios further apart than this are different pictures. */
const MAX_ASPECT_DIFFERENCE = 0.03;

export type Agreement =
  | {
      measured: true;
      score: number;
      offsetMs: number;
      /** The index in the burst of the frame the photo agrees with best: the photo's frame, whose links to its neighbours are read (frame-chain.ts). */
      frame: number;
    }
  | { measured: false; why: "aspect" | "plain" | "no_frame"; detail: string };

/** The photo (its overview) against the burst's frames (`t`: ms from the press). */
export function photoAgreement(photo: Luma, frames: readonly GreyFrame[]): Agreement {
  const near = frames.filter((f) => Math.abs(f.t) <= SHUTTER_WINDOW_MS);
  if (near.length === 0) return { measured: false, why: "no_frame", detail: `no frame within ${SHUTTER_WINDOW_MS} ms of the shutter` };
  const { width, height } = near[0]!;
  const photoAspect = photo.width / photo.height;
  const frameAspect = width / height;
  if (Math.abs(photoAspect / frameAspect - 1) > MAX_ASPECT_DIFFERENCE) {
    return { measured: false, why: "aspect", detail: `photo ${photo.width}x${photo.height}, frames ${width}x${height}` };
  }
  const reducer = new AreaReducer(photo.width, photo.height, Math.max(width, height), 1);
  reducer.add({ x: 0, y: 0, width: photo.width, height: photo.height, channels: 1, data: photo.data, stride: photo.width });
  const reduced = reducer.result();
  if (reduced.width !== width || reduced.height !== height) {
    return { measured: false, why: "aspect", detail: `photo reduces to ${reduced.width}x${reduced.height}, frames are ${width}x${height}` };
  }
  if (spread(reduced.data) < MIN_AGREEMENT_STD) return { measured: false, why: "plain", detail: "the photo is too plain to compare" };
  let best = -1;
  let at = 0;
  frames.forEach((frame, i) => {
    if (Math.abs(frame.t) > SHUTTER_WINDOW_MS) return;
    const score = bestCorrelation(reduced.data, frame.luma, width, height);
    if (score > best) [best, at] = [score, i];
  });
  return { measured: true, score: Math.round(best * 1000) / 1000, offsetMs: frames[at]!.t, frame: at };
}

/** The largest normalised cross-correlation of `a` with `b` shifted by up to SHIFT px, on the region both cover. */
function bestCorrelation(a: Uint8Array, b: Uint8Array, width: number, height: number): number {
  const region = { x0: SHIFT, y0: SHIFT, x1: width - SHIFT, y1: height - SHIFT };
  let best = -1;
  for (let dy = -SHIFT; dy <= SHIFT; dy += 1) {
    for (let dx = -SHIFT; dx <= SHIFT; dx += 1) best = Math.max(best, correlationAt(a, b, width, dx, dy, region));
  }
  return best;
}
