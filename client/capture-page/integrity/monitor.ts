/*
 * Watches the live preview for the capture-integrity record (no new permission: the stream the page
 * already shows). Every new frame of a small copy of the camera's track (the browser scales it: a
 * 320 px frame costs little to read) is reduced to at most 160 px and fingerprinted (a looping clip
 * repeats a frame exactly, a camera never does); the last few are kept for the burst around the
 * shutter. Just after the shutter a few 64 px patches of the full-resolution preview's centre are
 * read for the sensor noise: reading a full-resolution frame converts the whole frame, about 40 ms
 * of main thread in Chromium without a GPU (bench:page, 2026-11-27), too much for every frame.
 */
import type { CaptureIntegrity } from "../../../src/schemas/capture-integrity";
import { BURST_BEFORE_MS, BURST_RING, burstAround, fingerprint, FLAT_FRAME_STD, frameStd, lumaOf, measureBurst, NOISE_PATCHES, PATCH_SIDE, REDUCED_MAX_SIDE, RepeatWatch, type GreyFrame } from "./measures";
import { deviceOf } from "./device";
import { copyTrack } from "../camera";

type FrameCallback = (now: number, meta: { mediaTime: number }) => void;
type FrameVideo = HTMLVideoElement & { requestVideoFrameCallback?: (cb: FrameCallback) => number };

/** Frames closer together than this are skipped (a 60 fps camera is read at 30). */
const MIN_FRAME_GAP_MS = 30;
/** How long the shutter waits for frames after it before measuring what it has. */
const AFTER_SHUTTER_WAIT_MS = 1000;
/** The watched copy's longest side. */
const WATCH_SIDE = 320;

export interface IntegrityMonitor {
  /** The record for a shutter pressed now: waits for frames after it (at most a second). */
  record(): Promise<CaptureIntegrity>;
  stop(): void;
}

/** Calls `read` with each new frame of `video` until `alive()` turns false (requestVideoFrameCallback, else a timer). */
function eachFrame(video: FrameVideo, alive: () => boolean, read: (now: number, mediaTime: number) => void): void {
  const loop = () => {
    if (!alive()) return;
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
}

/** A hidden, muted video of a copy of the track scaled down by the browser; null where the browser will not scale a copy. */
async function smallCopy(track: MediaStreamTrack, host: HTMLElement): Promise<{ video: FrameVideo; track: MediaStreamTrack } | null> {
  let copy: MediaStreamTrack | null = null;
  try {
    copy = copyTrack(track);
    await copy.applyConstraints({ width: { max: WATCH_SIDE }, height: { max: WATCH_SIDE }, resizeMode: "crop-and-scale" } as MediaTrackConstraints);
    const video = document.createElement("video") as FrameVideo;
    video.muted = true;
    video.playsInline = true;
    video.setAttribute("aria-hidden", "true");
    video.style.cssText = "position:absolute;width:1px;height:1px;opacity:0;pointer-events:none";
    video.srcObject = new MediaStream([copy]);
    host.appendChild(video);
    await video.play();
    if (Math.max(video.videoWidth, video.videoHeight) > WATCH_SIDE) throw new Error("not scaled");
    return { video, track: copy };
  } catch {
    copy?.stop();
    return null;
  }
}

export function watchPreview(video: FrameVideo, stream: MediaStream): IntegrityMonitor {
  const track = stream.getVideoTracks()[0];
  const device = deviceOf(track);
  const watch = new RepeatWatch();
  const recent: GreyFrame[] = [];
  const reduced = document.createElement("canvas").getContext("2d");
  const patch = document.createElement("canvas").getContext("2d");
  let started = 0;
  let stopped = false;
  let copy: { video: FrameVideo; track: MediaStreamTrack } | null = null;
  let waiting: (() => void) | null = null;
  const alive = () => {
    if (!stopped && !video.isConnected) stop(); // the end user moved on
    return !stopped;
  };
  function stop() {
    stopped = true;
    copy?.track.stop(); // the copy holds the camera too: release it with the preview
    copy?.video.remove();
  }

  const watchFrames = (source: FrameVideo) => {
    let last = -Infinity;
    let lastMediaTime = -1;
    eachFrame(source, alive, (now, mediaTime) => {
      if (!reduced || source.videoWidth === 0 || mediaTime === lastMediaTime || now - last < MIN_FRAME_GAP_MS) return;
      [last, lastMediaTime] = [now, mediaTime];
      const scale = Math.min(1, REDUCED_MAX_SIDE / Math.max(source.videoWidth, source.videoHeight));
      const w = Math.max(1, Math.round(source.videoWidth * scale));
      const h = Math.max(1, Math.round(source.videoHeight * scale));
      if (reduced.canvas.width !== w || reduced.canvas.height !== h) [reduced.canvas.width, reduced.canvas.height] = [w, h];
      // "medium" is mipmapped, so the reduction averages; "high" resampled anew every frame.
      reduced.imageSmoothingQuality = "medium";
      reduced.drawImage(source, 0, 0, w, h);
      const frame: GreyFrame = { t: now, width: w, height: h, luma: lumaOf(reduced.getImageData(0, 0, w, h).data) };
      if (started === 0) started = now;
      watch.add(fingerprint(frame), frameStd(frame.luma) < FLAT_FRAME_STD);
      recent.push(frame);
      if (recent.length > BURST_RING) recent.shift();
      waiting?.();
    });
  };
  if (track && video.parentElement) {
    void smallCopy(track, video.parentElement).then((small) => {
      if (stopped || !small) return watchFrames(video);
      copy = small;
      watchFrames(small.video);
    });
  } else {
    watchFrames(video);
  }
  video.addEventListener("emptied", stop, { once: true });

  /** NOISE_PATCHES consecutive native patches of the preview's centre, from now on (at most AFTER_SHUTTER_WAIT_MS). */
  const nativePatches = (deadline: number) =>
    new Promise<Uint8Array[]>((resolve) => {
      const patches: Uint8Array[] = [];
      let lastMediaTime = -1;
      const timer = setTimeout(() => resolve(patches), Math.max(0, deadline - performance.now()));
      eachFrame(video, () => patches.length < NOISE_PATCHES && performance.now() < deadline && !stopped, (_now, mediaTime) => {
        if (!patch || video.videoWidth === 0 || mediaTime === lastMediaTime) return;
        lastMediaTime = mediaTime;
        const side = Math.min(PATCH_SIDE, video.videoWidth, video.videoHeight);
        [patch.canvas.width, patch.canvas.height] = [PATCH_SIDE, PATCH_SIDE];
        patch.drawImage(video, (video.videoWidth - side) >> 1, (video.videoHeight - side) >> 1, side, side, 0, 0, PATCH_SIDE, PATCH_SIDE);
        patches.push(lumaOf(patch.getImageData(0, 0, PATCH_SIDE, PATCH_SIDE).data));
        if (patches.length >= NOISE_PATCHES) {
          clearTimeout(timer);
          resolve(patches);
        }
      });
    });

  return {
    async record() {
      const shutterAt = performance.now();
      const deadline = shutterAt + AFTER_SHUTTER_WAIT_MS;
      const patches = nativePatches(deadline);
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
      burst ??= recent.filter((f) => f.t >= shutterAt - BURST_BEFORE_MS);
      return {
        schema_version: 1,
        device: await device,
        burst: measureBurst(burst, await patches),
        preview: { frames: watch.frames, duration_ms: Math.round(started ? (recent.at(-1)?.t ?? started) - started : 0), repeated_frames: watch.repeated },
      };
    },
    stop,
  };
}
