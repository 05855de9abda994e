import { correlationAt, overlap } from "./correlation";
import type { GreyFrame } from "../../model/evidence/grey-frame";
import { median } from "../../lib/median";

/*
 * How fast the camera swept across the burst. Block motion searches ±4 px around a centre
 * (measures.ts `pairShift`), and until `capture-burst/11` that centre was always no motion: a camera
 * swinging further between two frames (4 px of a 160 px frame in 33 ms, a pan of about three quarters
 * of the view a second) matched no block, the pair was compared in place, and its frames read as not
 * continuing each other, the mark of a spliced frame (`burst_frames_discontinuous`). Frames reduced
 * REDUCE times, correlated over ±16 px, give each pair a coarse shift and the burst its typical
 * motion (the median, which the one or two pairs a spliced frame breaks do not move); block motion
 * also searches around that and around each pair's neighbours' (`searchCentres`). Measured on
 * footage made to sweep faster:
 * scripts/eval/capture-footage/fast-sweep.ts (docs/signals.md).
 */

/** The frames are compared at 1/REDUCE of their size (block means). */
const REDUCE = 4;
/** Shifts searched on the reduced frames, ±: ±16 px at 160 px. */
const COARSE_SEARCH = 4;
/** A typical motion under this (px a frame, either axis) is no swing: the prediction stays (0, 0). */
const SWING_FROM = 3;
/** Reduced frames narrower or lower than this say nothing about motion. */
const MIN_REDUCED_SIDE = 8;

export interface Shift {
  dx: number;
  dy: number;
}

const NO_SWING: Shift = { dx: 0, dy: 0 };

/** Block means of REDUCE × REDUCE pixels (what does not fill a block at the right or bottom is left out). */
function reduce(frame: GreyFrame): { width: number; height: number; luma: Uint8Array } {
  const width = Math.floor(frame.width / REDUCE);
  const height = Math.floor(frame.height / REDUCE);
  const luma = new Uint8Array(width * height);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      let sum = 0;
      for (let j = 0; j < REDUCE; j += 1) {
        const row = (y * REDUCE + j) * frame.width + x * REDUCE;
        for (let i = 0; i < REDUCE; i += 1) sum += frame.luma[row + i]!;
      }
      luma[y * width + x] = Math.round(sum / (REDUCE * REDUCE));
    }
  }
  return { width, height, luma };
}

/** Where `a`'s content moved to in `b`, to the nearest reduced pixel, in full-size pixels; null when neither shift correlates. */
function coarseShift(a: ReturnType<typeof reduce>, b: ReturnType<typeof reduce>): Shift | null {
  let best = -1;
  let at: Shift | null = null;
  for (let dy = -COARSE_SEARCH; dy <= COARSE_SEARCH; dy += 1) {
    for (let dx = -COARSE_SEARCH; dx <= COARSE_SEARCH; dx += 1) {
      const region = overlap(a.width, a.height, dx, dy);
      // Less than half the frame in common: not comparable at this shift (as frame-chain.ts).
      if ((region.x1 - region.x0) * (region.y1 - region.y0) * 2 < a.width * a.height) continue;
      const c = correlationAt(a.luma, b.luma, a.width, dx, dy, region);
      if (c > best) [best, at] = [c, { dx: dx * REDUCE, dy: dy * REDUCE }];
    }
  }
  return best > 0 ? at : null;
}

export interface Sweep {
  /** The burst's typical motion, (0, 0) under SWING_FROM. */
  typical: Shift;
  /** Each consecutive pair's coarse shift (index i for frames i and i + 1), null where none correlates or the frames are too small. */
  pairs: Array<Shift | null>;
}

/** Where block motion should search for each consecutive pair of `frames` (one size, oldest first). */
export function swingOf(frames: readonly GreyFrame[]): Sweep {
  const first = frames[0];
  if (!first || Math.floor(first.width / REDUCE) < MIN_REDUCED_SIDE || Math.floor(first.height / REDUCE) < MIN_REDUCED_SIDE) {
    return { typical: NO_SWING, pairs: frames.slice(1).map(() => null) };
  }
  const reduced = frames.map(reduce);
  const pairs = reduced.slice(1).map((b, i) => coarseShift(reduced[i]!, b));
  const shifts = pairs.flatMap((s) => (s ? [s] : []));
  if (shifts.length === 0) return { typical: NO_SWING, pairs };
  const typical = { dx: Math.round(median(shifts.map((s) => s.dx))), dy: Math.round(median(shifts.map((s) => s.dy))) };
  return { typical: Math.max(Math.abs(typical.dx), Math.abs(typical.dy)) < SWING_FROM ? NO_SWING : typical, pairs };
}

/** Pairs on either side whose coarse shifts make a pair's local motion. */
const NEIGHBOURS = 2;

/**
 * Where block motion searches pair `pair` (frames `pair` and `pair + 1`) beside no motion: the
 * burst's typical motion, and the local motion, the median coarse shift of the pairs up to
 * NEIGHBOURS on either side, not the pair's own. A spliced frame's own pairs match it to its
 * neighbours by chance somewhere in ±16 px; searched there, it read as continuing them (rung 4″:
 * 207 of 216 caught, `scripts/eval/capture-burst.ts`); its neighbours' motion does not point there.
 */
export function searchCentres(sweep: Sweep, pair: number): Shift[] {
  const near = sweep.pairs.flatMap((s, j) => (s && j !== pair && Math.abs(j - pair) <= NEIGHBOURS ? [s] : []));
  if (near.length === 0) return [sweep.typical];
  return [sweep.typical, { dx: Math.round(median(near.map((s) => s.dx))), dy: Math.round(median(near.map((s) => s.dy))) }];
}
