/*
 * One shutter press decided as the service decides it: the frames and patches the page would send,
 * measured by the service's code (src/analysis/burst/), the photo (the frame on screen, through a
 * JPEG at the page's quality and the service's decoder) compared with the frames at the shutter,
 * the photo's screen detector as the flat scene's screen cue, and the decision
 * (src/analysis/signals/capture-burst.ts). The nonce, replay and attestation checks are passed in:
 * they are exact checks (their rungs are counted, not sampled).
 */
import jpeg from "jpeg-js";
import { photoAgreement } from "../../src/analysis/burst/agreement";
import { patchAgreement, photoCentre, type PatchAgreement } from "../../src/analysis/burst/patch-agreement";
import { measureBurst, type BurstMeasures } from "../../src/analysis/burst/measures";
import type { ReceivedBurst } from "../../src/analysis/burst/received";
import { decodeImage } from "../../src/analysis/decoders";
import { assessCaptureBurst, photoChain, type DepthNotAssessed } from "../../src/analysis/signals/capture-burst";
import { detectScreen, screenTileRects } from "../../src/analysis/signals/screen-moire";
import type { DepthResult } from "../../src/analysis/evidence";
import type { CaptureIntegrityV2 } from "../../src/schemas/capture-integrity";
import type { Press } from "../capture-fixtures/page-frames";

export type Decision = DepthResult | DepthNotAssessed;

function photoJpeg(photo: Press["photo"]): Uint8Array {
  const rgba = new Uint8Array(photo.width * photo.height * 4);
  for (let i = 0; i < photo.width * photo.height; i += 1) {
    rgba.fill(photo.data[i]!, i * 4, i * 4 + 3);
    rgba[i * 4 + 3] = 255;
  }
  return new Uint8Array(jpeg.encode({ width: photo.width, height: photo.height, data: rgba }, 90).data);
}

function record(press: Press): CaptureIntegrityV2 {
  const f = press.frames[0]!;
  return {
    schema_version: 2,
    nonce: "eval",
    device: press.device,
    preview: press.preview,
    frames: { width: f.width, height: f.height, count: press.frames.length, times_ms: press.frames.map((x) => x.t), sha256: "", bytes: 0 },
    patches: { side: 64, count: press.patches.length, times_ms: press.patches.map((_, i) => i * 33), sha256: "", bytes: 0 },
  };
}

/** `photo` replaces the press's own (another scene's photo sent beside these frames). */
export async function decidePress(press: Press, options: { photo?: Press["photo"]; burst?: Partial<ReceivedBurst> } = {}): Promise<{ decision: Decision; agreement: number | null; measures: BurstMeasures; patches: PatchAgreement; chain: number | null; screenDetected: boolean; screenStrength: number }> {
  const stored = record(press);
  const burst: ReceivedBurst = { record: stored, frames: press.frames, patches: press.patches, unreadable: null, nonce: { ok: true, issuedAt: 0 }, nonceReusedBy: [], attestationUnbound: null, replayOf: [], ...options.burst };
  const pixels = await decodeImage(photoJpeg(options.photo ?? press.photo), "image/jpeg", { tiles: screenTileRects });
  const agreement = photoAgreement(pixels.overview, press.frames);
  const screen = detectScreen(pixels, null);
  const measures = measureBurst(press.frames, press.patches);
  const patches = patchAgreement(photoCentre(pixels), burst.patches);
  const decision = assessCaptureBurst({
    record: stored,
    burst,
    measures,
    agreement,
    patches,
    screenCue: screen.screen_detected ? { code: "screen_in_photo", value: screen.confidence } : null,
  });
  return { decision, agreement: agreement.measured ? agreement.score : null, measures, patches, chain: photoChain(measures, agreement), screenDetected: screen.screen_detected, screenStrength: gridStrength(screen) };
}

/** The photo's lattice strength (the grid ratio `moire_grid_peaks` or `no_grid_peaks` reports; 0 when none was measured). */
function gridStrength(screen: { evidence: Array<{ code: string; value?: unknown }> }): number {
  const e = screen.evidence.find((x) => x.code === "moire_grid_peaks" || x.code === "no_grid_peaks");
  return typeof e?.value === "number" ? e.value : 0;
}

export const isAnomaly = (d: Decision) => "anomaly" in d && (d.anomaly || d.confidence < 0.25);
export const isUnassessed = (d: Decision) => "status" in d;
export const codesOf = (d: Decision) => d.evidence.map((e) => e.code);
