import type { DecodedImage } from "../decoders/types";
import { PATCH_SIDE } from "../../model/evidence/grey-frame";
import { blockTexture, correlation, MIN_TEXTURE, spread } from "./texture";

/*
 * Do the native patches belong to the photo? The noise rules read the native patches, so patches cut
 * from another recording (a real camera's, of anything) beside frames forged from the photo made
 * those rules see a camera (0 of 144 forged bursts caught that way, scripts/eval/capture-burst.ts).
 * The page cuts its first patch from the very drawing the photo is encoded from
 * (client/capture-page/integrity/monitor.ts: the centre `PATCH_SIDE` px, at `(width - side) >> 1`),
 * so the first patch must be the photo's centre. They are compared as block texture (texture.ts):
 * the photo's JPEG rounding averages out, the scene's texture does not. (Consecutive patches are not
 * tied to each other: docs/signals.md, "Threat model", rung 3b, says why and what that leaves open;
 * scripts/eval/capture-footage/patch-chain.ts is the try.)
 */

/** The first patch against the photo's centre: shifts of up to this many px (rounding of the two cuts). */
const PHOTO_SHIFT = 1;

/** The first patch against the photo's native centre: its best correlation, or why it was not compared. */
export type PatchAgreement = { measured: true; score: number } | { measured: false; why: "no_centre" | "plain"; detail: string };

/**
 * The photo's native centre as the page cut its first patch, from the decoded tile that holds it
 * (the screen detector's centre tile, analysis/signals/screen-moire.ts#screenTileRects); null when
 * the photo is smaller than a patch or no tile holds its centre.
 */
export function photoCentre(pixels: Pick<DecodedImage, "width" | "height" | "tiles">): Uint8Array | null {
  const side = PATCH_SIDE;
  if (pixels.width < side || pixels.height < side) return null;
  const x0 = (pixels.width - side) >> 1;
  const y0 = (pixels.height - side) >> 1;
  const tile = pixels.tiles.find((t) => t.x <= x0 && t.y <= y0 && t.x + t.width >= x0 + side && t.y + t.height >= y0 + side);
  if (!tile) return null;
  const out = new Uint8Array(side * side);
  for (let y = 0; y < side; y += 1) {
    const from = (y0 - tile.y + y) * tile.width + (x0 - tile.x);
    out.set(tile.data.subarray(from, from + side), y * side);
  }
  return out;
}

/** The burst's first native patch (cut at the shutter) against the photo's centre. */
export function patchAgreement(centre: Uint8Array | null, patches: readonly Uint8Array[]): PatchAgreement {
  if (!centre || patches.length === 0) return { measured: false, why: "no_centre", detail: "the photo's centre could not be read at full resolution" };
  const side = PATCH_SIDE;
  const m = PHOTO_SHIFT;
  const size = side - 2 * m;
  const ref = blockTexture(centre, side, m, m, size);
  if (spread(ref) < MIN_TEXTURE) return { measured: false, why: "plain", detail: "the photo's centre is too plain to compare" };
  let best = -1;
  for (let dy = -m; dy <= m; dy += 1) for (let dx = -m; dx <= m; dx += 1) best = Math.max(best, correlation(ref, blockTexture(patches[0]!, side, m + dx, m + dy, size)));
  return { measured: true, score: Math.round(best * 1000) / 1000 };
}
