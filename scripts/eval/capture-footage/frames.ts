/*
 * A footage clip read as the capture page reads a camera (scripts/eval/capture-footage/evaluate.ts
 * and screen-cues.ts): grey frames at the clip's own rate and resolution (capped at MAX_SIDE px, 960
 * unless FOOTAGE_MAX_SIDE says otherwise: the page asks phones for 1920 px, and native patches scale with it),
 * each reduced to 160 px on its longest side with its native 64 px centre patch.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { burstAround, PATCH_SIDE, REDUCED_MAX_SIDE } from "../../../client/capture-page/integrity/frames";
import { AreaReducer } from "../../../src/analysis/decoders/frame";
import type { GreyFrame } from "../../../src/model/evidence/grey-frame";
import type { PageFrame } from "../../capture-fixtures/page-frames";
import { cachePath, sequence, type Clip } from "./sources";

const MAX_SIDE = Number(process.env.FOOTAGE_MAX_SIDE ?? 960);

export interface Video {
  width: number;
  height: number;
  fps: number;
  frames: Uint8Array[];
}

/** The clip's first `seconds` as grey frames at its own rate, scaled to at most MAX_SIDE px (ffmpeg). */
export function readClip(clip: Clip, seconds: number): Video {
  const [w0, h0] = clip.resolution.split("x").map(Number) as [number, number];
  const scale = Math.min(1, MAX_SIDE / Math.max(w0, h0));
  const width = Math.round((w0 * scale) / 2) * 2;
  const height = Math.round((h0 * scale) / 2) * 2;
  const file = cachePath(clip);
  const seq = sequence(clip);
  const input = seq
    ? ["-framerate", String(clip.fps), "-pattern_type", "glob", "-i", path.join(file, `*${path.extname(clip.path)}`)]
    : ["-i", file];
  const raw = execFileSync("ffmpeg", ["-v", "error", ...input, "-t", String(seconds), "-vf", `scale=${width}:${height},format=gray`, "-r", String(clip.fps), "-f", "rawvideo", "-"], { maxBuffer: 1 << 30 });
  const size = width * height;
  const frames: Uint8Array[] = [];
  for (let o = 0; o + size <= raw.length; o += size) frames.push(new Uint8Array(raw.buffer, raw.byteOffset + o, size));
  return { width, height, fps: clip.fps, frames };
}

/** Each frame as the capture page keeps it: reduced to 160 px, its native centre patch, the native frame. */
export function pageFramesOf(video: Video): PageFrame[] {
  const { width: w, height: h } = video;
  const px = (w - PATCH_SIDE) >> 1;
  const py = (h - PATCH_SIDE) >> 1;
  return video.frames.map((f, i) => {
    const reducer = new AreaReducer(w, h, REDUCED_MAX_SIDE, 1);
    reducer.add({ x: 0, y: 0, width: w, height: h, channels: 1, data: f, stride: w });
    const reduced = reducer.result();
    const patch = new Uint8Array(PATCH_SIDE * PATCH_SIDE);
    for (let y = 0; y < PATCH_SIDE; y += 1) patch.set(f.subarray((py + y) * w + px, (py + y) * w + px + PATCH_SIDE), y * PATCH_SIDE);
    return { t: (1000 * i) / video.fps, width: reduced.width, height: reduced.height, luma: reduced.data, patch, native: f };
  });
}


/** A shutter press's burst: its frames, times from the press, and the index of the frame on screen at it. */
export interface PressFrames {
  frames: GreyFrame[];
  shutter: number;
}

/** The bursts the page would send for a shutter pressed every 500 ms from 1 s on (as evaluate.ts presses). */
export function pressesIn(frames: readonly GreyFrame[]): PressFrames[] {
  const out: PressFrames[] = [];
  for (let t = 1000; t <= frames.at(-1)!.t - 150; t += 500) {
    const burst = burstAround(frames, t);
    if (!burst) continue;
    const shifted = burst.map((f) => ({ t: f.t - t, width: f.width, height: f.height, luma: f.luma }));
    const shutter = shifted.reduce((best, f, i) => (f.t <= 0 && f.t > shifted[best]!.t ? i : best), 0);
    out.push({ frames: shifted, shutter });
  }
  return out;
}
