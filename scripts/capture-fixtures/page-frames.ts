/*
 * What the capture page sends of a video, reproduced in Node: each frame reduced to 160 × 120 (2×2
 * means of the 320 × 240 fixture, as the page's canvas scales it) plus the native 64 × 64 centre
 * patch, timed by the frame rate. For a shutter pressed at a time: the preview's repeat watch and the
 * burst around the press run the page's own code (client/capture-page/integrity/frames.ts); the frame
 * on screen at the press is the photo, and leads the native patches (monitor.ts).
 */
import { burstAround, fingerprint, FLAT_FRAME_STD, frameStd, NOISE_PATCHES, PATCH_SIDE, RepeatWatch, type GreyFrame } from "../../client/capture-page/integrity/frames";
import type { CaptureDevice, CapturePreview } from "../../src/schemas/capture-integrity";
import type { GreyVideo } from "./video";

export type PageFrame = GreyFrame & { patch: Uint8Array; native: Uint8Array };

/** A native frame (`w` × `h`) reduced as the page's canvas reduces it: 2 × 2 means. */
export function halved(f: Uint8Array, w: number, h: number): Uint8Array {
  const rw = w / 2;
  const rh = h / 2;
  const luma = new Uint8Array(rw * rh);
  for (let y = 0; y < rh; y += 1) {
    for (let x = 0; x < rw; x += 1) {
      const p = 2 * y * w + 2 * x;
      luma[y * rw + x] = (f[p]! + f[p + 1]! + f[p + w]! + f[p + w + 1]! + 2) >> 2;
    }
  }
  return luma;
}

export function pageFrames(video: GreyVideo): PageFrame[] {
  const { width: w, height: h } = video;
  const rw = w / 2;
  const rh = h / 2;
  const px = (w - PATCH_SIDE) >> 1;
  const py = (h - PATCH_SIDE) >> 1;
  return video.frames.map((f, i) => {
    const luma = halved(f, w, h);
    const patch = new Uint8Array(PATCH_SIDE * PATCH_SIDE);
    for (let y = 0; y < PATCH_SIDE; y += 1) patch.set(f.subarray((py + y) * w + px, (py + y) * w + px + PATCH_SIDE), y * PATCH_SIDE);
    return { t: (1000 * i) / video.fps, width: rw, height: rh, luma, patch, native: f };
  });
}

/** One shutter press as the page sends it: the burst (times from the press), the patches, the photo's native pixels, and the claims. */
export interface Press {
  device: CaptureDevice;
  preview: CapturePreview;
  frames: GreyFrame[];
  patches: Uint8Array[];
  photo: { width: number; height: number; data: Uint8Array };
}

/** The press at `shutterAt` ms, its device reported as `device`; null when the video ends too soon. */
export function pressAt(frames: PageFrame[], shutterAt: number, device: CaptureDevice, nativeSize: { width: number; height: number }): Press | null {
  const watch = new RepeatWatch();
  const seen = frames.filter((f) => f.t <= shutterAt);
  const onScreen = seen.at(-1);
  if (!onScreen) return null;
  for (const f of seen) watch.add(fingerprint(f), frameStd(f.luma) < FLAT_FRAME_STD);
  const burst = burstAround(frames, shutterAt);
  if (!burst) return null;
  const after = frames.filter((f) => f.t > shutterAt).slice(0, NOISE_PATCHES - 1);
  return {
    device,
    preview: { frames: watch.frames, duration_ms: Math.round(onScreen.t), repeated_frames: watch.repeated },
    frames: burst.map((f) => ({ t: Math.round((f.t - shutterAt) * 10) / 10, width: f.width, height: f.height, luma: f.luma })),
    patches: [onScreen, ...after].map((f) => f.patch),
    photo: { ...nativeSize, data: onScreen.native },
  };
}

export const PHONE_CAMERA: CaptureDevice = {
  label: "Back Camera",
  kind: "videoinput",
  facing_mode: "environment",
  settings: { width: 1920, height: 1440, frame_rate: 30, aspect_ratio: 1.3333 },
  controls: ["exposureMode", "focusMode", "torch", "whiteBalanceMode", "zoom"],
};
