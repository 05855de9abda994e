import { correlationAt, overlap } from "./correlation";
import { frameStd, type GreyFrame } from "../../model/evidence/grey-frame";

/*
 * Does each frame continue the one before it? A camera's consecutive frames, 33 ms apart, show the
 * same scene moved a little: once the pair's shift is taken out they correlate closely. A frame
 * spliced in from elsewhere (the photo put at the shutter of another recording's frames: rung 4″ of
 * the ladder, docs/signals.md) does not continue its neighbours.
 */

/** Frames varying less than this (std, grey levels) are too plain to say whether they continue. */
export const MIN_LINK_STD = 4;
/** Searched around the pair's shift (px): it is the median of its blocks', rounded. */
const SEARCH = 1;

/**
 * How well `b` continues `a`: the best normalised correlation of `a` with `b` at the pair's shift
 * (`shift`: where `a`'s content moved to in `b`) ± `search` px, over the pixels both cover; null when
 * either frame is too plain to say.
 */
export function frameLink(a: GreyFrame, b: GreyFrame, shift: { dx: number; dy: number }, search = SEARCH): number | null {
  if (frameStd(a.luma) < MIN_LINK_STD || frameStd(b.luma) < MIN_LINK_STD) return null;
  const [cx, cy] = [Math.round(shift.dx), Math.round(shift.dy)];
  let best = -1;
  for (let dy = cy - search; dy <= cy + search; dy += 1) {
    for (let dx = cx - search; dx <= cx + search; dx += 1) {
      const region = overlap(a.width, a.height, dx, dy);
      // Less than half the frame in common: the pair cannot be compared at this shift.
      if ((region.x1 - region.x0) * (region.y1 - region.y0) * 2 < a.width * a.height) continue;
      best = Math.max(best, correlationAt(a.luma, b.luma, a.width, dx, dy, region));
    }
  }
  return best;
}

/**
 * Does the photo continue the recording it came with? The weaker of the links entering and leaving
 * the photo's frame `at` (`links[i]`: frame i to i + 1); null when the photo's frame is itself too
 * plain to link (`plain`: the frames under MIN_LINK_STD). A link a textured photo's neighbour is too
 * plain to measure counts as 0: a camera's frame does not turn blank beside it, and a blank frame put
 * on either side of a spliced photo hid it until capture-burst/12. Links away from the photo are not
 * read: a jerk of a slow camera's hand breaks one of them, and a frame spliced in elsewhere puts
 * nothing into the photo (docs/signals.md).
 */
export function photoFrameChain(links: readonly (number | null)[], plain: readonly number[], at: number): number | null {
  if (plain.includes(at)) return null;
  const beside = [at > 0 ? links[at - 1] : undefined, links[at]].filter((l) => l !== undefined);
  return beside.length > 0 ? Math.min(...beside.map((l) => l ?? 0)) : null;
}
