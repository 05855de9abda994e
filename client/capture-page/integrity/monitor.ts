/*
 * Watches the live preview for the capture-integrity record (no new permission: the stream the page
 * already shows). New video frames are reduced to at most 160 px and fingerprinted (a looping clip
 * repeats a frame exactly, a camera never does); the last few are kept for the burst around the
 * shutter. At the shutter and just after it, 64 px patches of the full-resolution frame's centre are
 * read for the sensor noise. The record carries the frames themselves (two greyscale PNG strips):
 * the service measures them; the page only counts its preview's repeats.
 *
 * Reading a frame costs what the browser charges to turn it into pixels: about 1-3 ms where the
 * canvas is drawn on a GPU, 30-60 ms in Chromium without one (bench:page, 2026-11-27). So the page
 * reads as many frames as it can while spending at most about a sixth of the main thread on them
 * (MAX_SHARE), and after the shutter reads every frame until the burst is complete.
 */
import { BURST_LIMITS } from "../../../src/schemas/burst-limits";
import type { PendingIntegrity } from "../../../src/schemas/capture-integrity";
import { BURST_BEFORE_MS, BURST_RING, burstAround, fingerprint, FLAT_FRAME_STD, frameStd, lumaOf, NOISE_PATCHES, PATCH_SIDE, REDUCED_MAX_SIDE, RepeatWatch, thin, type GreyFrame } from "./frames";
import { deviceOf } from "./device";
import { greyStripPng, toBase64 } from "./png-strip";


type FrameCallback = (now: number, meta: { mediaTime: number }) => void;
type FrameVideo = HTMLVideoElement & { requestVideoFrameCallback?: (cb: FrameCallback) => number };

/** Frames closer together than this are skipped (a 60 fps camera is read at 30). */
const MIN_FRAME_GAP_MS = 30;
/** While the preview runs, reading frames may take at most this share of the time. */
const MAX_SHARE = 1 / 6;
/** How long the shutter waits for frames after it before measuring what it has. */
const AFTER_SHUTTER_WAIT_MS = 1000;

type Source = { image: CanvasImageSource; width: number; height: number };

export interface IntegrityMonitor {
  /**
   * The record for a shutter pressed now, whose photo is `still` (camera.ts#stillOf): waits for
   * frames after it (at most a second); null when the camera gave almost none.
   */
  record(still: HTMLCanvasElement): Promise<PendingIntegrity | null>;
  stop(): void;
}

export function watchPreview(video: FrameVideo, stream: MediaStream): IntegrityMonitor {
  const device = deviceOf(stream.getVideoTracks()[0]);
  const watch = new RepeatWatch();
  const recent: GreyFrame[] = [];
  const patches: Array<{ t: number; luma: Uint8Array }> = [];
  const reduced = document.createElement("canvas").getContext("2d");
  const patch = document.createElement("canvas").getContext("2d");
  let started = 0;
  let stopped = false;
  let nextAt = 0;
  let cost = 0;
  /** Set from the shutter until the burst and its patches are read: every frame is read. */
  let shutterAt: number | null = null;
  let wake: (() => void) | null = null;
  let lastMediaTime = -1;

  /** A frame (the video's current one, or the photo's still), reduced, and (when asked) the centre patch at native resolution. */
  const grab = (now: number, withPatch: boolean, source: Source = { image: video, width: video.videoWidth, height: video.videoHeight }): { frame: GreyFrame; patch: Uint8Array | null } | null => {
    const { image, width, height } = source;
    if (!reduced || !patch || width === 0 || height === 0) return null;
    const scale = Math.min(1, REDUCED_MAX_SIDE / Math.max(width, height));
    const w = Math.max(1, Math.round(width * scale));
    const h = Math.max(1, Math.round(height * scale));
    if (reduced.canvas.width !== w || reduced.canvas.height !== h) [reduced.canvas.width, reduced.canvas.height] = [w, h];
    // "medium" is mipmapped, so the reduction averages; "high" resampled the whole frame anew each time.
    reduced.imageSmoothingQuality = "medium";
    reduced.drawImage(image, 0, 0, w, h);
    const frame: GreyFrame = { t: now, width: w, height: h, luma: lumaOf(reduced.getImageData(0, 0, w, h).data) };
    if (!withPatch) return { frame, patch: null };
    const side = Math.min(PATCH_SIDE, width, height);
    [patch.canvas.width, patch.canvas.height] = [PATCH_SIDE, PATCH_SIDE];
    patch.drawImage(image, (width - side) >> 1, (height - side) >> 1, side, side, 0, 0, PATCH_SIDE, PATCH_SIDE);
    return { frame, patch: lumaOf(patch.getImageData(0, 0, PATCH_SIDE, PATCH_SIDE).data) };
  };

  const keep = (frame: GreyFrame) => {
    // Frames are kept in the order they were on screen; a video frame callback's time can fall just
    // before the shutter's own reading of the frame then on screen, so times are made to increase.
    const last = recent.at(-1);
    if (last && frame.t <= last.t) frame.t = last.t + 1;
    if (started === 0) started = frame.t;
    watch.add(fingerprint(frame), frameStd(frame.luma) < FLAT_FRAME_STD);
    recent.push(frame);
    if (recent.length > BURST_RING) recent.shift();
  };

  const read = (now: number, mediaTime: number) => {
    if (mediaTime === lastMediaTime) return;
    if (shutterAt === null && now < nextAt) return;
    const begun = performance.now();
    const got = grab(now, shutterAt !== null && now > shutterAt && patches.length < NOISE_PATCHES);
    if (!got) return;
    lastMediaTime = mediaTime;
    keep(got.frame);
    if (got.patch) patches.push({ t: Math.max(now, (patches.at(-1)?.t ?? -Infinity) + 1), luma: got.patch });
    const took = performance.now() - begun;
    cost = cost === 0 ? took : 0.8 * cost + 0.2 * took;
    nextAt = now + Math.max(MIN_FRAME_GAP_MS, cost / MAX_SHARE);
    wake?.();
  };

  const loop = () => {
    if (stopped || !video.isConnected) return;
    if (video.requestVideoFrameCallback) {
      video.requestVideoFrameCallback((now, meta) => {
        read(now, meta.mediaTime);
        loop();
      });
    } else {
      setTimeout(() => {
        read(performance.now(), video.currentTime);
        loop();
      }, MIN_FRAME_GAP_MS);
    }
  };
  loop();

  return {
    async record(still) {
      const pressed = performance.now();
      shutterAt = pressed;
      patches.length = 0;
      // The photo's frame leads the patches and joins the frames (in place of the last one read, when that was the same picture).
      const now = grab(pressed, true, { image: still, width: still.width, height: still.height });
      if (now) {
        // The last frame read may be the photo's own frame, reduced from the video rather than the
        // still: the still takes its place, at the press (the service looks for the photo near it).
        const last = recent.at(-1);
        if (last && nearlySame(last.luma, now.frame.luma)) recent[recent.length - 1] = { ...now.frame, t: Math.max(last.t, pressed) };
        else keep(now.frame);
        patches.push({ t: pressed, luma: now.patch! });
      }
      const deadline = pressed + AFTER_SHUTTER_WAIT_MS;
      let burst = burstAround(recent, pressed);
      while ((!burst || patches.length < NOISE_PATCHES) && performance.now() < deadline && !stopped) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 100);
        });
        wake = null;
        burst ??= burstAround(recent, pressed);
      }
      shutterAt = null;
      // A camera that delivered too little after the shutter: send what there is (the service then says the burst was too short).
      burst ??= thin(recent.filter((f) => f.t >= pressed - BURST_BEFORE_MS), BURST_LIMITS.maxFrames);
      if (burst.length < BURST_LIMITS.minFrames || patches.length < BURST_LIMITS.minPatches) return null;
      return pendingRecord(await device, burst, patches.slice(0, NOISE_PATCHES), pressed, {
        frames: watch.frames,
        duration_ms: Math.round(started ? (recent.at(-1)?.t ?? started) - started : 0),
        repeated_frames: watch.repeated,
      });
    },
    stop() {
      stopped = true;
    },
  };
}

/** The same picture reduced twice: differences of a fraction of a grey level on average. */
function nearlySame(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += Math.abs(a[i]! - b[i]!);
  return sum <= a.length / 2;
}

const offset = (t: number, pressed: number) => Math.round((t - pressed) * 10) / 10;

/** The record without its nonce: frames and patches as PNG strips, times from the press. */
async function pendingRecord(
  device: PendingIntegrity["device"],
  frames: GreyFrame[],
  patches: Array<{ t: number; luma: Uint8Array }>,
  pressed: number,
  preview: PendingIntegrity["preview"],
): Promise<PendingIntegrity> {
  // A strip holds frames of one size: those of the shutter's (a camera that changed its resolution mid-burst leaves the others out).
  const { width, height } = frames.at(-1) ?? { width: 0, height: 0 };
  frames = frames.filter((f) => f.width === width && f.height === height);
  const [framesPng, patchesPng] = await Promise.all([greyStripPng(frames.map((f) => f.luma), width, height), greyStripPng(patches.map((p) => p.luma), PATCH_SIDE, PATCH_SIDE)]);
  return {
    schema_version: 2,
    device,
    preview,
    frames: { width, height, times_ms: frames.map((f) => offset(f.t, pressed)), png_base64: toBase64(framesPng) },
    patches: { side: PATCH_SIDE as 64, times_ms: patches.map((p) => offset(p.t, pressed)), png_base64: toBase64(patchesPng) },
  };
}
