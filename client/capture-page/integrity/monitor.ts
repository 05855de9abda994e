/*
 * Watches the live preview for the capture-integrity record (no new permission: the stream the page
 * already shows). Each new video frame is drawn twice: reduced to at most 160 px, and a 64 px patch
 * of its centre at native resolution; both are fingerprinted (a looping clip repeats a frame
 * exactly, a camera never does) and the last few kept for the burst around the shutter.
 */
import type { CaptureIntegrity } from "../../../src/schemas/capture-integrity";
import { BURST_RING, burstAround, fingerprint, FLAT_FRAME_STD, frameStd, lumaOf, measureBurst, PATCH_SIDE, REDUCED_MAX_SIDE, RepeatWatch, type GreyFrame } from "./measures";
import { deviceOf } from "./device";

type FrameVideo = HTMLVideoElement & { requestVideoFrameCallback?: (cb: (now: number, meta: { mediaTime: number }) => void) => number };

/** Frames closer together than this are skipped (a 60 fps camera is read at 30). */
const MIN_FRAME_GAP_MS = 30;
/** How long the shutter waits for the first frame after it before measuring what it has. */
const AFTER_SHUTTER_WAIT_MS = 1000;

export interface IntegrityMonitor {
  /** The record for a shutter pressed now: waits for one frame after it (at most a second). */
  record(): Promise<CaptureIntegrity>;
  stop(): void;
}

export function watchPreview(video: FrameVideo, stream: MediaStream): IntegrityMonitor {
  const track = stream.getVideoTracks()[0];
  const device = deviceOf(track);
  const watch = new RepeatWatch();
  const recent: GreyFrame[] = [];
  const reduced = document.createElement("canvas").getContext("2d");
  const patch = document.createElement("canvas").getContext("2d");
  let started = 0;
  let last = -Infinity;
  let lastMediaTime = -1;
  let stopped = false;
  let waiting: (() => void) | null = null;

  const read = (now: number, mediaTime: number) => {
    if (!reduced || !patch || video.videoWidth === 0 || mediaTime === lastMediaTime || now - last < MIN_FRAME_GAP_MS) return;
    lastMediaTime = mediaTime;
    last = now;
    const scale = Math.min(1, REDUCED_MAX_SIDE / Math.max(video.videoWidth, video.videoHeight));
    const w = Math.max(1, Math.round(video.videoWidth * scale));
    const h = Math.max(1, Math.round(video.videoHeight * scale));
    if (reduced.canvas.width !== w || reduced.canvas.height !== h) [reduced.canvas.width, reduced.canvas.height] = [w, h];
    [patch.canvas.width, patch.canvas.height] = [PATCH_SIDE, PATCH_SIDE];
    reduced.imageSmoothingQuality = "high";
    reduced.drawImage(video, 0, 0, w, h);
    const side = Math.min(PATCH_SIDE, video.videoWidth, video.videoHeight);
    patch.drawImage(video, (video.videoWidth - side) >> 1, (video.videoHeight - side) >> 1, side, side, 0, 0, PATCH_SIDE, PATCH_SIDE);
    const frame: GreyFrame = { t: now, width: w, height: h, luma: lumaOf(reduced.getImageData(0, 0, w, h).data), patch: lumaOf(patch.getImageData(0, 0, PATCH_SIDE, PATCH_SIDE).data) };
    if (started === 0) started = now;
    watch.add(fingerprint(frame), frameStd(frame.luma) < FLAT_FRAME_STD);
    recent.push(frame);
    if (recent.length > BURST_RING) recent.shift();
    waiting?.();
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
    async record() {
      const shutterAt = performance.now();
      const deadline = shutterAt + AFTER_SHUTTER_WAIT_MS;
      let burst = burstAround(recent, shutterAt);
      while (!burst && performance.now() < deadline && !stopped) {
        await new Promise<void>((resolve) => {
          waiting = resolve;
          setTimeout(resolve, 100);
        });
        waiting = null;
        burst = burstAround(recent, shutterAt);
      }
      // A camera that delivered nothing after the shutter: measure what there is (the server then says the burst was too short).
      burst ??= recent.filter((f) => f.t >= shutterAt - 400);
      return {
        schema_version: 1,
        device: await device,
        burst: measureBurst(burst),
        preview: { frames: watch.frames, duration_ms: Math.round(started ? (recent.at(-1)?.t ?? started) - started : 0), repeated_frames: watch.repeated },
      };
    },
    stop() {
      stopped = true;
    },
  };
}
