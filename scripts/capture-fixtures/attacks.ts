/*
 * The injected streams the capture-integrity cues must not pass, made from real pictures:
 *  - a still photo fed as the camera (every frame the same: what OBS Virtual Camera or
 *    v4l2loopback send for an image, and Chromium's fake camera for a one-frame file);
 *  - a short real clip looping;
 *  - a photo on a screen (or a print) filmed while the phone moves: SIMULATED here by warping the
 *    photo with the homography a flat plane takes under a hand-held camera's rotation and
 *    translation, with fresh sensor noise (σ 1.5 grey levels) on every frame;
 *  - a still with fresh noise on every frame and no motion (a virtual camera behind a noise
 *    filter): a known miss, measured to say so;
 *  - the warps with noise shaped like a camera's: white noise box-blurred twice (3 × 3), so
 *    neighbouring pixels' noise correlates as a camera pipeline's does (the forge probe of
 *    2026-12-04 passed with it).
 */
import { rng } from "../../test/helpers/synth";
import { HEIGHT, WIDTH, type GreyVideo } from "./video";

/** A standard normal variate (Box–Muller). */
function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

export function still(frame: Uint8Array, fps: number, seconds: number): GreyVideo {
  return { fps, width: WIDTH, height: HEIGHT, frames: Array.from({ length: Math.round(fps * seconds) }, () => frame) };
}

export function looping(video: GreyVideo, loopSeconds: number, seconds: number, start = 0): GreyVideo {
  const first = Math.round(start * video.fps);
  const clip = video.frames.slice(first, first + Math.max(2, Math.round(loopSeconds * video.fps)));
  return { ...video, frames: Array.from({ length: Math.round(video.fps * seconds) }, (_, i) => clip[i % clip.length]!) };
}

export function noisyStill(frame: Uint8Array, fps: number, seconds: number, seed: number, sigma = 1.5): GreyVideo {
  const random = rng(seed);
  const frames = Array.from({ length: Math.round(fps * seconds) }, () => frame.map((v) => Math.max(0, Math.min(255, Math.round(v + sigma * gaussian(random))))));
  return { fps, width: WIDTH, height: HEIGHT, frames };
}

/**
 * Fresh noise of standard deviation `sigma`: white, or box-blurred twice (3 × 3; each pixel's noise
 * then correlates about 0.84 with its neighbours', as a camera's demosaicked and denoised noise does).
 */
export function noiseField(width: number, height: number, random: () => number, sigma: number, shape: NoiseShape): Float32Array {
  const field = Float32Array.from({ length: width * height }, () => gaussian(random));
  if (shape === "white") return field.map((v) => v * sigma);
  let out: Float32Array = field;
  for (let pass = 0; pass < 2; pass += 1) out = boxBlur3(out, width, height);
  // Two 3 × 3 box blurs are a 5 × 5 kernel (1 2 3 2 1)²/81: the noise's σ shrinks by √(19/81)² = 19/81.
  return out.map((v) => (v * sigma * 81) / 19);
}

/** A 3 × 3 box blur, edges clamped. */
function boxBlur3(field: Float32Array, width: number, height: number): Float32Array {
  const out = new Float32Array(field.length);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      let sum = 0;
      for (let dy = -1; dy <= 1; dy += 1) {
        const yy = Math.max(0, Math.min(height - 1, y + dy));
        for (let dx = -1; dx <= 1; dx += 1) sum += field[yy * width + Math.max(0, Math.min(width - 1, x + dx))]!;
      }
      out[y * width + x] = sum / 9;
    }
  }
  return out;
}

export type NoiseShape = "white" | "camera-shaped";

/** 3×3 matrix product. */
function mul(a: number[], b: number[]): number[] {
  const out = new Array<number>(9).fill(0);
  for (let r = 0; r < 3; r += 1) for (let c = 0; c < 3; c += 1) for (let k = 0; k < 3; k += 1) out[r * 3 + c]! += a[r * 3 + k]! * b[k * 3 + c]!;
  return out;
}

/** A hand-held camera's pose at time t (s): its rotation (3 × 3, row-major) and its position. */
export type HandPose = (t: number) => { r: number[]; o: number[] };

/**
 * A hand's shake: small rotations (yaw, pitch, roll up to ~1.5°) and translations (up to ~4 % of the
 * distance to the plane) as sums of slow sinusoids, drawn from `random` (six waves of three parts).
 * The camera sits at (tx, ty, -1 + tz) looking down +z at the plane z = 0.
 */
export function handShake(random: () => number): HandPose {
  const wave = (amplitude: number) => {
    const parts = [0, 1, 2].map(() => ({ a: amplitude * (0.3 + random()), f: 0.5 + 3 * random(), p: 2 * Math.PI * random() }));
    return (t: number) => parts.reduce((s, q) => s + q.a * Math.sin(2 * Math.PI * q.f * t + q.p), 0) / 2;
  };
  const deg = Math.PI / 180;
  const [yaw, pitch, roll] = [wave(1.2 * deg), wave(1.2 * deg), wave(0.8 * deg)];
  const [tx, ty, tz] = [wave(0.03), wave(0.03), wave(0.04)];
  return (t) => {
    const [a, b, c] = [yaw(t), pitch(t), roll(t)];
    const rx = [1, 0, 0, 0, Math.cos(b), -Math.sin(b), 0, Math.sin(b), Math.cos(b)];
    const ry = [Math.cos(a), 0, Math.sin(a), 0, 1, 0, -Math.sin(a), 0, Math.cos(a)];
    const rz = [Math.cos(c), -Math.sin(c), 0, Math.sin(c), Math.cos(c), 0, 0, 0, 1];
    return { r: mul(rz, mul(ry, rx)), o: [tx(t), ty(t), -1 + tz(t)] };
  };
}

/**
 * The photo (pw × ph, centred on the plane, `scale` photo px per plane unit) as the camera at `pose`
 * sees it along the ray through (x, y) (image coordinates over the focal length), read bilinearly.
 */
export function planeSample(photo: Uint8Array, pw: number, ph: number, scale: number, pose: { r: number[]; o: number[] }, x: number, y: number): number {
  const { r, o } = pose;
  // A ray through (x, y) is d = Rᵀ·(x, y, 1); it meets the plane at o + s·d with s = -oz / dz.
  const dx = r[0]! * x + r[3]! * y + r[6]!;
  const dy = r[1]! * x + r[4]! * y + r[7]!;
  const dz = r[2]! * x + r[5]! * y + r[8]!;
  const s = -o[2]! / dz;
  const px = (o[0]! + s * dx) * scale + pw / 2;
  const py = (o[1]! + s * dy) * scale + ph / 2;
  const x0 = Math.max(0, Math.min(pw - 2, Math.floor(px)));
  const y0 = Math.max(0, Math.min(ph - 2, Math.floor(py)));
  const fx = Math.max(0, Math.min(1, px - x0));
  const fy = Math.max(0, Math.min(1, py - y0));
  const p = y0 * pw + x0;
  return (photo[p]! * (1 - fx) + photo[p + 1]! * fx) * (1 - fy) + (photo[p + pw]! * (1 - fx) + photo[p + pw + 1]! * fx) * fy;
}

/**
 * A photo (`photo`, pw × ph, larger than the view so the moving view stays inside it) on a plane at
 * distance 1 facing the camera, filmed by a hand-held camera (`handShake`), focal length WIDTH px
 * (about 53° across). Each output pixel is read through the plane's homography, bilinearly, and gets
 * fresh Gaussian noise (white, or camera-shaped: `noiseField`).
 */
export function movingScreen(photo: Uint8Array, pw: number, ph: number, fps: number, seconds: number, seed: number, sigma = 1.5, shape: NoiseShape = "white"): GreyVideo {
  const random = rng(seed);
  const pose = handShake(random);
  const f = WIDTH;
  // The view of the plane at rest covers the photo's centre: photo px per plane unit.
  const scale = (pw / WIDTH) * f * 0.8;
  const frames: Uint8Array[] = [];
  for (let i = 0; i < Math.round(fps * seconds); i += 1) {
    const at = pose(i / fps);
    const noise = noiseField(WIDTH, HEIGHT, random, sigma, shape);
    const out = new Uint8Array(WIDTH * HEIGHT);
    for (let v = 0; v < HEIGHT; v += 1) {
      for (let u = 0; u < WIDTH; u += 1) {
        const value = planeSample(photo, pw, ph, scale, at, (u - WIDTH / 2) / f, (v - HEIGHT / 2) / f) + noise[v * WIDTH + u]!;
        out[v * WIDTH + u] = Math.max(0, Math.min(255, Math.round(value)));
      }
    }
    frames.push(out);
  }
  return { fps, width: WIDTH, height: HEIGHT, frames };
}

/*
 * Forged bursts with no noise at all (the outside probe of 2026-12-05 made each with a short script
 * and read `verified` under capture-burst/5):
 */

/** The photo (pw × ph) cropped to the view at a whole-pixel offset that walks with a hand's shake: the picture moves, nothing else changes. */
export function shiftedStill(photo: Uint8Array, pw: number, ph: number, fps: number, seconds: number, seed: number): GreyVideo {
  const random = rng(seed);
  const reach = { x: Math.min(24, (pw - WIDTH) >> 1), y: Math.min(24, (ph - HEIGHT) >> 1) };
  const phase = [random(), random()].map((p) => 2 * Math.PI * p);
  const frames = Array.from({ length: Math.round(fps * seconds) }, (_, i) => {
    const t = i / fps;
    const ox = ((pw - WIDTH) >> 1) + Math.round(reach.x * Math.sin(2 * Math.PI * 0.7 * t + phase[0]!));
    const oy = ((ph - HEIGHT) >> 1) + Math.round(reach.y * Math.sin(2 * Math.PI * 0.45 * t + phase[1]!));
    const out = new Uint8Array(WIDTH * HEIGHT);
    for (let y = 0; y < HEIGHT; y += 1) out.set(photo.subarray((oy + y) * pw + ox, (oy + y) * pw + ox + WIDTH), y * WIDTH);
    return out;
  });
  return { fps, width: WIDTH, height: HEIGHT, frames };
}

/**
 * `video` with ±1 added to a random `share` of each frame's pixels, fresh every frame: noise sparse
 * enough that most pixels never change (the picture moved by whole pixels with it read `verified`
 * under capture-burst/6: the trimmed noise measure took every change for an edge).
 */
export function sparseNoise(video: GreyVideo, share: number, seed: number): GreyVideo {
  const random = rng(seed);
  const frames = video.frames.map((f) => f.map((v) => (random() < share ? Math.max(0, Math.min(255, v + (random() < 0.5 ? -1 : 1))) : v)));
  return { ...video, frames };
}

/** The photo repeated with every level raised and lowered together (a triangle of ±`amplitude` levels, `perFrame` a frame): only the brightness changes. */
export function brightnessRamp(frame: Uint8Array, fps: number, seconds: number, perFrame = 1.5, amplitude = 24): GreyVideo {
  const period = (4 * amplitude) / perFrame;
  const frames = Array.from({ length: Math.round(fps * seconds) }, (_, i) => {
    const phase = (i % period) / period;
    const level = Math.round(amplitude * (phase < 0.5 ? 4 * phase - 1 : 3 - 4 * phase));
    return frame.map((v) => Math.max(0, Math.min(255, v + level)));
  });
  return { fps, width: WIDTH, height: HEIGHT, frames };
}

/**
 * `video` with every frame's levels multiplied together (a triangle of gains 1 ± `amplitude`,
 * `perFrame` a frame), as a camera's exposure changes them: a change that follows each pixel's level,
 * where `brightnessRamp` adds the same to all (the outside probe of 2026-12-06 read the photo so
 * ramped, moved by whole pixels or not, `verified` under capture-burst/8).
 */
export function gainRamp(video: GreyVideo, perFrame = 0.015, amplitude = 0.18): GreyVideo {
  const period = (4 * amplitude) / perFrame;
  const frames = video.frames.map((f, i) => {
    const phase = (i % period) / period;
    const gain = 1 + amplitude * (phase < 0.5 ? 4 * phase - 1 : 3 - 4 * phase);
    return f.map((v) => Math.max(0, Math.min(255, Math.round(v * gain))));
  });
  return { ...video, frames };
}

/**
 * The photo repeated with one corner square (`side` px) at a new level every frame (never one seen
 * before, so no frame repeats: a loop would trip on its own): a small area changes, the rest is still.
 */
export function blinkingCorner(frame: Uint8Array, fps: number, seconds: number, side = 40): GreyVideo {
  const frames = Array.from({ length: Math.round(fps * seconds) }, (_, i) => {
    const out = frame.slice();
    for (let y = 0; y < side; y += 1) out.fill(20 + ((i * 53) % 211), y * WIDTH, y * WIDTH + side);
    return out;
  });
  return { fps, width: WIDTH, height: HEIGHT, frames };
}
