import { alignPatchesWide, exposureChange, isEdge, marginOf, patchesAligned, PATCH_SIDE, solve } from "../../../src/analysis/burst/measures";

/*
 * Does the native patches' temporal noise depend on the light level? A sensor's shot noise grows
 * with the signal, and the camera's tone curve and denoiser reshape it level by level; noise added
 * to a picture (rung 3 of docs/signals.md's ladder: warps of the photo with white noise box-blurred
 * twice) is the same at every level. Each aligned pair of consecutive patches (measures.ts's
 * alignment), its change of exposure (gain and offset) taken out, leaves a residual per pixel; the
 * flat, unclipped pixels are binned by their level and the residual's spread is read per bin.
 * Not shipped: on the footage it does not tell a camera from added noise (docs/signals.md,
 * "Signal-dependent noise tried"; collect.ts and report.ts measure it). With `subpixel` the pair's
 * sub-pixel motion is fitted and taken out as well (first order), with `smoothFlat` the flat pixels
 * are chosen on 3 × 3 means (on single pixels a strong noise reads as an edge, and the noisiest
 * levels would lose their noisiest pixels). On a synthetic ramp with shot noise σ = √(0.02 · level),
 * it reads each bin's σ within 6 % and bright over dark σ 1.15–1.18 (1.21 expected); with σ 1.5 at every
 * level, 0.95–1.00.
 */

/** Levels per bin. */
export const LEVEL_BIN = 16;
/** Pixels this close to 0 or 255 in either patch are left out: added noise is clipped there too. */
const CLIP_MARGIN = 8;

/** One level bin: its pixels' mean level, how many, and the residual's σ as one frame's noise. */
export interface LevelBin {
  level: number;
  n: number;
  sigma: number;
}

/** σ of one frame's noise from residual differences of two frames: the lowest 80 % of |r − median| (edges and misalignment are the rest), scaled as patchNoise scales it. */
function trimmedSigma(residuals: number[]): number {
  if (residuals.length === 0) return 0;
  const sorted = [...residuals].sort((x, y) => x - y);
  const centre = sorted[sorted.length >> 1]!;
  const deviations = sorted.map((r) => Math.abs(r - centre)).sort((x, y) => x - y);
  const keep = Math.max(1, Math.floor(deviations.length * 0.8));
  let sum = 0;
  for (let i = 0; i < keep; i += 1) sum += deviations[i]!;
  return (sum / keep) * 1.2659;
}

/** The residual noise of the burst's aligned native patch pairs, by level bin (bins with no pixel left out). */
export function noiseByLevel(patches: readonly Uint8Array[], side = PATCH_SIDE, options: { subpixel?: boolean; smoothFlat?: boolean } = {}): LevelBin[] {
  const residuals: number[][] = Array.from({ length: Math.ceil(256 / LEVEL_BIN) }, () => []);
  const levels = new Float64Array(residuals.length);
  for (let p = 1; p < patches.length; p += 1) {
    const [a, b] = [patches[p - 1]!, patches[p]!];
    if (a.length !== side * side || b.length !== side * side) continue;
    const aligned = alignPatchesWide(a, b, side);
    if (!patchesAligned(a, b, side, aligned)) continue;
    const r = marginOf(aligned) + 1;
    const at = (i: number) => i + aligned.dy * side + aligned.dx;
    // The flat test on 3 × 3 means, 2 px apart: on single pixels a strong noise reads as an edge, and the noisiest levels lose their noisiest pixels.
    const [sa, sb] = options.smoothFlat ? [boxMean(a, side), boxMean(b, side)] : [null, null];
    const flat: number[] = [];
    const unclipped: number[] = [];
    for (let y = r; y < side - r; y += 1) {
      for (let x = r; x < side - r; x += 1) {
        const i = y * side + x;
        const [va, vb] = [a[i]!, b[at(i)]!];
        if (va < CLIP_MARGIN || vb < CLIP_MARGIN || va > 255 - CLIP_MARGIN || vb > 255 - CLIP_MARGIN) continue;
        unclipped.push(i);
        const edge = options.smoothFlat ? smoothEdge(sa!, i, side) || smoothEdge(sb!, at(i), side) : isEdge(a, i, side) || isEdge(b, at(i), side);
        if (!edge) flat.push(i);
      }
    }
    const predict = options.subpixel ? motionAndExposure(a, b, at, unclipped, side) : exposureOnly(a, b, at, unclipped);
    for (const i of flat) {
      const level = (a[i]! + b[at(i)]!) / 2;
      const bin = Math.min(residuals.length - 1, Math.floor(level / LEVEL_BIN));
      residuals[bin]!.push(b[at(i)]! - predict(i));
      levels[bin]! += level;
    }
  }
  return residuals.flatMap((rs, k) => (rs.length > 0 ? [{ level: levels[k]! / rs.length, n: rs.length, sigma: trimmedSigma(rs) }] : []));
}

function exposureOnly(a: Uint8Array, b: Uint8Array, at: (i: number) => number, indices: readonly number[]): (i: number) => number {
  const { gain, offset } = exposureChange(a, b, at, indices);
  return (i) => gain * a[i]! + offset;
}

/** b ≈ gain · a + offset + u · ∂a/∂x + v · ∂a/∂y: the pair's change of exposure and its sub-pixel motion, by least squares (first order). */
function motionAndExposure(a: Uint8Array, b: Uint8Array, at: (i: number) => number, indices: readonly number[], side: number): (i: number) => number {
  const features = (i: number) => [a[i]!, 1, (a[i + 1]! - a[i - 1]!) / 2, (a[i + side]! - a[i - side]!) / 2];
  const ata = Array.from({ length: 4 }, () => new Array<number>(4).fill(0));
  const atb = new Array<number>(4).fill(0);
  for (const i of indices) {
    const f = features(i);
    const y = b[at(i)]!;
    for (let r = 0; r < 4; r += 1) {
      atb[r]! += f[r]! * y;
      for (let c = 0; c < 4; c += 1) ata[r]![c]! += f[r]! * f[c]!;
    }
  }
  const x = solve(ata, atb);
  if (!x) return exposureOnly(a, b, at, indices);
  return (i) => features(i).reduce((s, v, k) => s + v * x[k]!, 0);
}

/** 3 × 3 means of a `side`-wide patch (its border left 0: never read, the window stays inside). */
function boxMean(p: Uint8Array, side: number): Float64Array {
  const out = new Float64Array(side * side);
  for (let y = 1; y < side - 1; y += 1) {
    for (let x = 1; x < side - 1; x += 1) {
      let sum = 0;
      for (let dy = -1; dy <= 1; dy += 1) for (let dx = -1; dx <= 1; dx += 1) sum += p[(y + dy) * side + x + dx]!;
      out[y * side + x] = sum / 9;
    }
  }
  return out;
}

/** An edge on 3 × 3 means: their neighbours 2 px apart across and down differ by FLAT_GRADIENT (as isEdge) or more. */
const smoothEdge = (m: Float64Array, i: number, side: number) => Math.abs(m[i + 2]! - m[i - 2]!) + Math.abs(m[i + 2 * side]! - m[i - 2 * side]!) >= 12;
