import { greyStripPng, toBase64 } from "../../client/capture-page/integrity/png-strip";
import type { CaptureDevice, PendingIntegrity } from "../../src/schemas/capture-integrity";
import { encodeJpeg, rng } from "./synth";

/*
 * Live captures the tests build themselves, as the capture page would send them: a camera moving
 * over a synthetic scene, rendered at a native 480 × 360, the photo the frame at the shutter (a
 * JPEG), the burst its frames from 400 ms before to 100 ms after reduced to 160 × 120 (4 × 4
 * averages, as the page's canvas reduces them) and the native centre patches of the shutter frame
 * and the next ones, written by the page's own PNG strip encoder. Made here, so they exercise the
 * plumbing and the rules, never the evidence figures (those are measured on footage nobody here
 * filmed: docs/signals.md).
 *
 * `scene3d`: a near object over a far background, moving at different speeds (parallax).
 * `plane`: one textured plane moving (a document, a wall, or a screen held to the camera).
 * `still`: the same picture in every frame with no noise (an injected still).
 * Forged by a script from one picture with no noise at all (the outside probe of 2026-12-05):
 * `shifted`: the picture moved by whole native pixels; `ramp`: the still with its levels ramped,
 * 3 a frame; `blink`: the still with a 60 px corner at a new level every frame.
 * `sparse`: `shifted` with ±1 on one pixel in twelve of every frame (capture-burst/7).
 * `jumping`: `shifted`, its native patches the photo's centre moved 12 px further each frame, past
 * the ±8 px the patch alignment searched until capture-burst/8.
 * `single`: `shifted`, sent with the shutter's native patch alone (no pair to read noise from;
 * read as measured until capture-burst/9: outside probe of 2026-12-06).
 * `gain`: the still with its gain ramped 1.5 % a frame (a change of exposure multiplies the levels);
 * `gainShifted`: `shifted` with the same ramp (both read verified until capture-burst/9).
 */

export type BurstScene = "scene3d" | "plane" | "still" | "shifted" | "ramp" | "blink" | "sparse" | "jumping" | "single" | "gain" | "gainShifted";
const JUMP_PX = 12;
const FORGED: ReadonlySet<BurstScene> = new Set(["still", "shifted", "ramp", "blink", "sparse", "gain", "gainShifted"]);
const MOVED_BY_WHOLE_PIXELS: ReadonlySet<BurstScene> = new Set(["shifted", "sparse", "gainShifted"]);
const GAIN_STEP = 0.015;

const W = 480;
const H = 360;
const SCALE = 3;
const FRAME_MS = 1000 / 30;
const PATCH = 64;

export const PHONE: CaptureDevice = {
  label: "Back Camera",
  kind: "videoinput",
  facing_mode: "environment",
  settings: { width: W, height: H, frame_rate: 30, aspect_ratio: 1.333 },
  controls: ["exposureMode", "focusMode", "torch", "whiteBalanceMode", "zoom"],
};

/** Value noise: random values on a grid `cell` px apart, bilinearly interpolated, defined everywhere. */
function texture(seed: number, cell: number, amplitude: number): (x: number, y: number) => number {
  const r = rng(seed);
  const n = 256;
  const grid = Float32Array.from({ length: n * n }, () => (r() - 0.5) * 2 * amplitude);
  return (x, y) => {
    const gx = x / cell;
    const gy = y / cell;
    const x0 = Math.floor(gx);
    const y0 = Math.floor(gy);
    const fx = gx - x0;
    const fy = gy - y0;
    const at = (i: number, j: number) => grid[(((j % n) + n) % n) * n + (((i % n) + n) % n)]!;
    const top = at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx;
    const bottom = at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx;
    return top * (1 - fy) + bottom * fy;
  };
}

/** Native frames at `times` (ms from the shutter). */
function render(scene: BurstScene, seed: number, times: number[]): Uint8Array[] {
  const far = texture(seed, 7, 55);
  const near = texture(seed + 1, 5, 60);
  const r = rng(seed + 2);
  const draw = () => (r() + r() + r() + r() - 2) * 1.7;
  // Hand shake: native px per ms, with a little curvature.
  const vx = 0.012 + r() * 0.006;
  const vy = 0.006 + r() * 0.004;
  return times.map((t, i) => {
    const frame = new Uint8Array(W * H);
    const forged = FORGED.has(scene);
    // A camera's noise is spread over neighbouring pixels (demosaicking, denoising): each pixel averages four draws.
    const raw = Float32Array.from({ length: (W + 1) * (H + 1) }, draw);
    const noise = (x: number, y: number) => (raw[y * (W + 1) + x]! + raw[y * (W + 1) + x + 1]! + raw[(y + 1) * (W + 1) + x]! + raw[(y + 1) * (W + 1) + x + 1]!) / 2;
    const k = forged && !MOVED_BY_WHOLE_PIXELS.has(scene) ? 0 : t + 400;
    const whole = MOVED_BY_WHOLE_PIXELS.has(scene) ? Math.round : (v: number) => v;
    const bx = whole(vx * k + 0.00001 * k * k);
    const by = whole(vy * k);
    const level = scene === "ramp" ? 3 * i - 24 : 0;
    const gain = scene === "gain" || scene === "gainShifted" ? 1 + GAIN_STEP * i : 1;
    for (let y = 0; y < H; y += 1) {
      for (let x = 0; x < W; x += 1) {
        const inside = scene === "scene3d" && x > W * 0.3 && x < W * 0.7 && y > H * 0.25 && y < H * 0.75;
        // The near object moves 2.2 times as far as the background: parallax.
        const v = inside ? 120 + near(x + 2.2 * bx + 1000, y + 2.2 * by) : 128 + far(x + bx, y + by);
        // A new level every frame (53 and 211 are coprime): no frame repeats, so no loop trips first.
        const blink = scene === "blink" && x < 60 && y < 60 ? 20 + ((i * 53) % 211) : null;
        const flip = scene === "sparse" && r() < 1 / 12 ? (r() < 0.5 ? -1 : 1) : 0;
        frame[y * W + x] = blink ?? Math.max(0, Math.min(255, Math.round(v * gain + level + (forged ? flip : noise(x, y)))));
      }
    }
    return frame;
  });
}

function reduce(frame: Uint8Array): Uint8Array {
  const w = W / SCALE;
  const h = H / SCALE;
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y += 1) {
    for (let x = 0; x < w; x += 1) {
      let s = 0;
      for (let dy = 0; dy < SCALE; dy += 1) for (let dx = 0; dx < SCALE; dx += 1) s += frame[(y * SCALE + dy) * W + x * SCALE + dx]!;
      out[y * w + x] = Math.round(s / (SCALE * SCALE));
    }
  }
  return out;
}

/** The native centre patch, as the page cuts it (`right` px to the right of it for a forgery). */
function centre(frame: Uint8Array, right = 0): Uint8Array {
  const out = new Uint8Array(PATCH * PATCH);
  const x0 = ((W - PATCH) >> 1) + right;
  const y0 = (H - PATCH) >> 1;
  for (let y = 0; y < PATCH; y += 1) out.set(frame.subarray((y0 + y) * W + x0, (y0 + y) * W + x0 + PATCH), y * PATCH);
  return out;
}

const grey = (frame: Uint8Array) => ({ width: W, height: H, data: Uint8Array.from({ length: W * H * 3 }, (_, i) => frame[Math.floor(i / 3)]!) });

export interface SyntheticCapture {
  /** The photo: the native frame at the shutter, as a JPEG. */
  photo: Uint8Array;
  /** The record as the page leaves it at the shutter (the nonce is added when it is sent). */
  integrity: PendingIntegrity;
}

/** A live capture of `scene`, `seed` choosing its textures, noise and shake. */
export async function syntheticCapture(scene: BurstScene, seed: number, device: CaptureDevice = PHONE): Promise<SyntheticCapture> {
  const times = Array.from({ length: 16 }, (_, i) => Math.round((i * FRAME_MS - 400) * 10) / 10).filter((t) => t <= 100);
  const frames = render(scene === "jumping" || scene === "single" ? "shifted" : scene, seed, times);
  const shutter = times.findIndex((t) => t >= 0);
  const patchFrames = frames.slice(shutter, shutter + (scene === "single" ? 1 : 6));
  const patches = scene === "jumping" ? patchFrames.map((_, i) => centre(frames[shutter]!, JUMP_PX * i)) : patchFrames.map((f) => centre(f));
  const [framesPng, patchesPng] = await Promise.all([greyStripPng(frames.map(reduce), W / SCALE, H / SCALE), greyStripPng(patches, PATCH, PATCH)]);
  return {
    photo: encodeJpeg(grey(frames[shutter]!), 92),
    integrity: {
      schema_version: 2,
      device,
      preview: { frames: 90, duration_ms: 3000, repeated_frames: 0 },
      frames: { width: W / SCALE, height: H / SCALE, times_ms: times, png_base64: toBase64(framesPng) },
      patches: { side: PATCH, times_ms: times.slice(shutter, shutter + patches.length), png_base64: toBase64(patchesPng) },
    },
  };
}
