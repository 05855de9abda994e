/*
 * What the capture page reads of a video, reproduced in Node: each frame reduced to 160 × 120 (2×2
 * means of the 320 × 240 fixture, as the page's canvas scales it) plus the native 64 × 64 centre
 * patch (the page reads those only for the NOISE_PATCHES frames after the shutter), timed by the
 * frame rate; the preview's repeat watch and the burst around a shutter press run the page's own
 * code (client/capture-page/integrity/measures.ts).
 */
import { burstAround, fingerprint, FLAT_FRAME_STD, frameStd, measureBurst, NOISE_PATCHES, PATCH_SIDE, RepeatWatch, type GreyFrame } from "../../client/capture-page/integrity/measures";
import type { CaptureIntegrity } from "../../src/schemas/capture-integrity";
import type { GreyVideo } from "./video";

export type PageFrame = GreyFrame & { patch: Uint8Array };

export function pageFrames(video: GreyVideo): PageFrame[] {
  const { width: w, height: h } = video;
  const rw = w / 2;
  const rh = h / 2;
  const px = (w - PATCH_SIDE) >> 1;
  const py = (h - PATCH_SIDE) >> 1;
  return video.frames.map((f, i) => {
    const luma = new Uint8Array(rw * rh);
    for (let y = 0; y < rh; y += 1) {
      for (let x = 0; x < rw; x += 1) {
        const p = 2 * y * w + 2 * x;
        luma[y * rw + x] = (f[p]! + f[p + 1]! + f[p + w]! + f[p + w + 1]! + 2) >> 2;
      }
    }
    const patch = new Uint8Array(PATCH_SIDE * PATCH_SIDE);
    for (let y = 0; y < PATCH_SIDE; y += 1) patch.set(f.subarray((py + y) * w + px, (py + y) * w + px + PATCH_SIDE), y * PATCH_SIDE);
    return { t: (1000 * i) / video.fps, width: rw, height: rh, luma, patch };
  });
}

/** The record the page would send for a shutter pressed at `shutterAt` ms, its device reported as `device`. */
export function recordAt(frames: PageFrame[], shutterAt: number, device: CaptureIntegrity["device"]): CaptureIntegrity | null {
  const watch = new RepeatWatch();
  const seen = frames.filter((f) => f.t <= shutterAt);
  for (const f of seen) watch.add(fingerprint(f), frameStd(f.luma) < FLAT_FRAME_STD);
  const burst = burstAround(frames, shutterAt);
  if (!burst) return null;
  return {
    schema_version: 1,
    device,
    burst: measureBurst(burst, frames.filter((f) => f.t > shutterAt).slice(0, NOISE_PATCHES).map((f) => f.patch)),
    preview: { frames: watch.frames, duration_ms: Math.round(seen.at(-1)?.t ?? 0), repeated_frames: watch.repeated },
  };
}

export const PHONE_CAMERA: CaptureIntegrity["device"] = {
  label: "Back Camera",
  kind: "videoinput",
  facing_mode: "environment",
  settings: { width: 1920, height: 1440, frame_rate: 30, aspect_ratio: 1.3333 },
  controls: ["exposureMode", "focusMode", "torch", "whiteBalanceMode", "zoom"],
};
