/*
 * What a burst of video frames says about where they came from, measured by the service on the
 * frames the capture page sent (analysis/burst/read.ts decodes them): each frame the whole picture
 * reduced to at most 160 px, and a few native-resolution patches of the centre, which carry the
 * sensor noise the reduction averages away. Measures: identical and repeated frames, temporal
 * noise, how much of the patches' edges stayed exactly still, whole-frame motion (each beyond the
 * frames' common change of level), and parallax: how far the motion of textured blocks between the first
 * and last frames is from one homography (a flat screen or print moves as one plane; a scene with
 * depth does not). The evaluation (scripts/eval/capture-burst.ts) runs the same code in Node.
 */
import type { BurstMeasuresV1 } from "../../schemas/capture-integrity";
import { FLAT_FRAME_STD, frameStd, PATCH_SIDE, type GreyFrame } from "../../model/evidence/grey-frame";
import { frameLink, MIN_LINK_STD } from "./frame-chain";
import { searchCentres, swingOf } from "./swing";
import { median } from "../../lib/median";
import { blockTexture, correlation, MIN_TEXTURE, spread } from "./texture";

export { FLAT_FRAME_STD, frameStd, PATCH_SIDE, type GreyFrame };

/**
 * The measures: those version 1 records carried (the page computed them then), and the noise's
 * spatial correlation with near and farther neighbours (medians over consecutive patch pairs; null
 * when no pair could say).
 */
export type BurstMeasures = BurstMeasuresV1 & {
  noise_correlation: number | null;
  noise_correlation_far: number | null;
  /**
   * The share of the native patches' textured pixels left exactly unchanged between consecutive
   * patches once aligned (median over pairs; null when no pair has enough texture): 1 when the
   * patches are the same picture moved by whole pixels, or not at all.
   */
  patch_still_share: number | null;
  /**
   * σ of one frame's noise over the pixels the correlation is measured on (the native patches' flat
   * areas, or the whole patch where it has too few), every pixel counted (median over pairs; null
   * when no pair differs). `temporal_noise` leaves out the largest fifth of the differences (edges
   * left by sub-pixel motion), so noise added to fewer pixels than that read there as none
   * (capture-burst/7, "sparse noise").
   */
  untrimmed_noise: number | null;
  /**
   * How well each frame continues the one before it (`frameLink`: the pair's correlation once its
   * shift is taken out), one per consecutive pair; null where a frame is too plain to say. The
   * decision reads the links beside the photo's frames (`photoFrameChain`).
   */
  frame_links: Array<number | null>;
  /** The frames too plain to link (their indices; `MIN_LINK_STD`). */
  plain_frames: number[];
  /** Consecutive patch pairs, and how many of them aligned (`patchesAligned`): only those are measured for noise. */
  patch_pairs: number;
  aligned_pairs: number;
};

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

const same = (a: GreyFrame, b: GreyFrame) => sameBytes(a.luma, b.luma);

/** The mean of `b` minus the mean of `a` (two pictures of one size): a change of exposure, or a ramp of levels. */
function meanOffset(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += b[i]! - a[i]!;
  return a.length > 0 ? sum / a.length : 0;
}

/** The median of the integer differences `b − a` at each pixel (a histogram: no sort, no allocation per pixel). */
function medianDifference(a: Uint8Array, b: Uint8Array, at: (i: number) => number = (i) => i, indices: Iterable<number> = a.keys()): number {
  const histogram = new Uint32Array(511);
  let n = 0;
  for (const i of indices) {
    histogram[b[at(i)]! - a[i]! + 255]! += 1;
    n += 1;
  }
  if (n === 0) return 0;
  let seen = 0;
  for (let d = 0; d < 511; d += 1) {
    seen += histogram[d]!;
    if (seen * 2 >= n) return d - 255;
  }
  return 0;
}

/**
 * The integer shift within `radius` of `around` (and within ±`margin`) that best aligns `b` with
 * `a`, two `n`-wide pictures: the sum of absolute differences over `a`'s window [margin, n − margin)²,
 * every `step`-th pixel, `b` brought `offset` towards `a`'s level.
 */
function bestShift(a: ArrayLike<number>, b: ArrayLike<number>, n: number, search: { margin: number; step: number; around: { dx: number; dy: number }; radius: number; offset: number }): { dx: number; dy: number } {
  const { margin: m, step, around, radius, offset } = search;
  let best = Infinity;
  let found = { dx: around.dx, dy: around.dy };
  for (let dy = Math.max(-m, around.dy - radius); dy <= Math.min(m, around.dy + radius); dy += 1) {
    for (let dx = Math.max(-m, around.dx - radius); dx <= Math.min(m, around.dx + radius); dx += 1) {
      let sad = 0;
      for (let y = m; y < n - m; y += step) {
        const ra = y * n;
        const rb = (y + dy) * n + dx;
        for (let x = m; x < n - m; x += step) sad += Math.abs(a[ra + x]! - b[rb + x]! + offset);
      }
      if (sad < best) [best, found] = [sad, { dx, dy }];
    }
  }
  return found;
}

/**
 * The integer shift (±`r` px) that best aligns patch `b` with patch `a` (sum of absolute differences
 * on every other pixel, `b`'s mean level brought to `a`'s: a change of exposure is no shift).
 */
export function alignPatches(a: Uint8Array, b: Uint8Array, side: number, r: number = PATCH_MARGIN): { dx: number; dy: number } {
  return bestShift(a, b, side, { margin: r, step: 2, around: { dx: 0, dy: 0 }, radius: r, offset: meanOffset(a, b) });
}

const PATCH_MARGIN = 8;

/** Patches whose best shift is at ±PATCH_MARGIN are searched again up to this far (`alignPatchesWide`). */
export const WIDE_MARGIN = 16;

/** The window margin a shift needs: PATCH_MARGIN, or more for a shift found by the wide search. */
export const marginOf = (aligned: { dx: number; dy: number }) => Math.max(PATCH_MARGIN, Math.abs(aligned.dx), Math.abs(aligned.dy));

function binned(p: Uint8Array, side: number): Float64Array {
  const n = side >> 1;
  const out = new Float64Array(n * n);
  for (let y = 0; y < n; y += 1) for (let x = 0; x < n; x += 1) out[y * n + x] = (p[2 * y * side + 2 * x]! + p[2 * y * side + 2 * x + 1]! + p[(2 * y + 1) * side + 2 * x]! + p[(2 * y + 1) * side + 2 * x + 1]!) / 4;
  return out;
}

/**
 * `alignPatches`, and where its best shift is at the edge of its ±PATCH_MARGIN search (a camera that
 * moved further between two frames), the same searched up to ±WIDE_MARGIN: on 2 × 2 means first,
 * then ±2 px around it at full resolution. A pair aligned inside ±PATCH_MARGIN is measured as before.
 */
export function alignPatchesWide(a: Uint8Array, b: Uint8Array, side: number): { dx: number; dy: number } {
  const near = alignPatches(a, b, side);
  if (Math.abs(near.dx) < PATCH_MARGIN && Math.abs(near.dy) < PATCH_MARGIN) return near;
  const offset = meanOffset(a, b);
  const half = WIDE_MARGIN >> 1;
  const coarse = bestShift(binned(a, side), binned(b, side), side >> 1, { margin: half, step: 1, around: { dx: 0, dy: 0 }, radius: half, offset });
  return bestShift(a, b, side, { margin: WIDE_MARGIN, step: 2, around: { dx: 2 * coarse.dx, dy: 2 * coarse.dy }, radius: 2, offset });
}

/** Aligned patches whose texture correlates less than this show different things (`patchesAligned`). */
export const MIN_ALIGNED_AGREEMENT = 0.5;

/**
 * Whether `b`, shifted by `aligned` (`alignPatchesWide`), shows what `a` shows: the shift is inside
 * the wide search (at its edge the patches moved further than it reaches) and their block texture
 * agrees (texture.ts). A pair that did not align says nothing of noise: every edge of the scene
 * would read as noise, as it did for the photo's centre moved 12 px a frame with no noise at all
 * (capture-burst/8: 0 of 144 such forgeries caught under /7, scripts/eval/capture-burst.ts). Plain
 * patches have nothing to misalign.
 */
export function patchesAligned(a: Uint8Array, b: Uint8Array, side: number, aligned: { dx: number; dy: number }): boolean {
  if (Math.abs(aligned.dx) >= WIDE_MARGIN || Math.abs(aligned.dy) >= WIDE_MARGIN) return false;
  const m = marginOf(aligned);
  const texture = blockTexture(a, side, m, m, side - 2 * m);
  if (spread(texture) < MIN_TEXTURE) return true;
  return correlation(texture, blockTexture(b, side, m + aligned.dx, m + aligned.dy, side - 2 * m)) >= MIN_ALIGNED_AGREEMENT;
}

/**
 * Temporal noise of two native patches: the best integer alignment (±8 px), then the mean of the
 * lowest 80 % of the absolute differences from their median (a change of exposure, or a ramp of
 * levels, moves every pixel alike and is no noise), scaled to σ of one frame's noise (for Gaussian
 * noise the trimmed mean of |d| is 0.5586 σ_d and σ_d = √2 σ). Edges left by sub-pixel motion are
 * the top 20 %.
 */
export function patchNoise(a: Uint8Array, b: Uint8Array, side = PATCH_SIDE, aligned = alignPatches(a, b, side)): number {
  const r = marginOf(aligned);
  const { dx: bx, dy: by } = aligned;
  const shifted = (i: number) => i + by * side + bx;
  // A clipped pixel (0 or 255 in either patch) shows no noise, only how far a change of level pushed it.
  const inner: number[] = [];
  for (let y = r; y < side - r; y += 1) {
    for (let x = r; x < side - r; x += 1) {
      const i = y * side + x;
      if (a[i]! % 255 !== 0 && b[shifted(i)]! % 255 !== 0) inner.push(i);
    }
  }
  const level = medianDifference(a, b, shifted, inner);
  const histogram = new Uint32Array(511);
  let n = 0;
  for (const i of inner) {
    histogram[Math.abs(b[shifted(i)]! - a[i]! - level)]! += 1;
    n += 1;
  }
  const keep = Math.floor(n * 0.8);
  let taken = 0;
  let sum = 0;
  for (let d = 0; d < 511 && taken < keep; d += 1) {
    const take = Math.min(histogram[d]!, keep - taken);
    taken += take;
    sum += take * d;
  }
  return keep > 0 ? (sum / keep) * 1.2659 : 0;
}

/** Pixels whose neighbours differ by more than this (summed over both axes) are edges, not flat areas. */
const FLAT_GRADIENT = 12;

/** Whether pixel `i` of a `side`-wide patch is an edge: its neighbours across and down differ by FLAT_GRADIENT or more. */
export const isEdge = (a: Uint8Array, i: number, side: number) => Math.abs(a[i + 1]! - a[i - 1]!) + Math.abs(a[i + side]! - a[i - side]!) >= FLAT_GRADIENT;
/** Fewer flat pixels than this in a pair and its noise structure is measured over the whole patch. */
const MIN_FLAT_PIXELS = 200;

/**
 * How the noise between two native patches is spread: the correlation of the aligned difference
 * with itself one pixel across and one down (`near`), and two pixels across and down (`far`), over
 * the patch's flat areas (edges left by sub-pixel motion are no noise). A camera's noise passes
 * through demosaicking, denoising and the video encoder, which spread each pixel's error to its
 * near neighbours (`near` 0.3–0.9 in the evaluations' videos, and above `far`); noise added pixel by
 * pixel to a picture is white (about 0), and what sub-pixel motion leaves of the picture's texture
 * is smooth (`near` about `far`). A patch with too few flat pixels is measured over all of it
 * (capture-burst/7): there the difference is mostly the texture's sub-pixel motion, spread over
 * neighbours as well (`near` 0.31 and 0.36 on the footage's two such genuine presses: `evaluate.ts
 * --measures`), while noise added to a picture moved by whole pixels is white there too. `sigma` is
 * the difference's spread over those pixels, every one counted, as σ of one frame's noise
 * (σ_d = √2 σ). Null when the patches do not differ.
 */
export function noiseCorrelation(a: Uint8Array, b: Uint8Array, side = PATCH_SIDE, aligned = alignPatches(a, b, side)): { near: number; far: number; sigma: number } | null {
  const r = marginOf(aligned) + 1;
  const { dx, dy } = aligned;
  const d = new Float64Array(side * side);
  // The pixels measured: the flat ones, or every one when too few are flat.
  const counted = new Uint8Array(side * side);
  let mean = 0;
  let n = 0;
  let wholeSum = 0;
  let wholeCount = 0;
  for (let y = r; y < side - r; y += 1) {
    for (let x = r; x < side - r; x += 1) {
      const i = y * side + x;
      d[i] = b[(y + dy) * side + x + dx]! - a[i]!;
      wholeSum += d[i]!;
      wholeCount += 1;
      if (!isEdge(a, i, side)) {
        counted[i] = 1;
        mean += d[i]!;
        n += 1;
      }
    }
  }
  if (n < MIN_FLAT_PIXELS) {
    for (let y = r; y < side - r; y += 1) counted.fill(1, y * side + r, y * side + side - r);
    [mean, n] = [wholeSum, wholeCount];
  }
  mean /= n;
  let spread = 0;
  for (let i = 0; i < d.length; i += 1) if (counted[i]) spread += (d[i]! - mean) ** 2;
  const lag = (step: number): number | null => {
    let cross = 0;
    let power = 0;
    for (let y = r; y < side - r; y += 1) {
      for (let x = r; x < side - r; x += 1) {
        const i = y * side + x;
        if (!counted[i]) continue;
        const v = d[i]! - mean;
        if (x + step < side - r && counted[i + step]) {
          cross += v * (d[i + step]! - mean);
          power += v * v;
        }
        if (y + step < side - r && counted[i + step * side]) {
          cross += v * (d[i + step * side]! - mean);
          power += v * v;
        }
      }
    }
    return power > 0 ? cross / power : null;
  };
  const near = lag(1);
  const far = lag(2);
  return near === null || far === null ? null : { near, far, sigma: Math.sqrt(spread / n / 2) };
}

/** Fewer textured pixels than this in a pair and its still share is not measured. */
const MIN_TEXTURED_PIXELS = 100;

/**
 * A pixel within this many grey levels of the previous patch's pixel, once the pair's change of
 * exposure is taken out, is unchanged: rounding both patches to whole levels leaves of a change of
 * gain the difference of two roundings (within ±1, within ±0.95 for 99.7 % of the pixels), while a
 * change of one whole level with no change of exposure (a camera's noise, sparse added noise) stays a
 * change.
 */
const STILL_TOLERANCE = 0.95;

/**
 * The change of exposure from `a` to `b` (aligned by `at`) over `indices`: `b ≈ gain · a + offset`,
 * fitted by least squares. An exposure change multiplies the levels and an offset adds to them; a
 * scene that moved or a sensor's noise leave what this does not explain.
 */
export function exposureChange(a: Uint8Array, b: Uint8Array, at: (i: number) => number, indices: readonly number[]): { gain: number; offset: number } {
  let sa = 0;
  let sb = 0;
  let saa = 0;
  let sab = 0;
  for (const i of indices) {
    const x = a[i]!;
    const y = b[at(i)]!;
    sa += x;
    sb += y;
    saa += x * x;
    sab += x * y;
  }
  const n = indices.length;
  const variance = n * saa - sa * sa;
  if (n === 0 || variance <= 0) return { gain: 1, offset: n > 0 ? (sb - sa) / n : 0 };
  const gain = (n * sab - sa * sb) / variance;
  return { gain, offset: (sb - gain * sa) / n };
}

/**
 * The share of patch `a`'s textured pixels (neighbours differing by at least FLAT_GRADIENT) left
 * unchanged in `b` once aligned and the pair's change of exposure (gain and offset, fitted over the
 * window's unclipped pixels) taken out: within STILL_TOLERANCE levels; clipped pixels say nothing.
 * A camera that moved leaves no edge where it was (sub-pixel motion and sensor noise change it); a
 * picture moved by whole pixels, or not moved, leaves every one (probe of 2026-12-05), whatever its
 * levels were ramped by: added to (capture-burst/6) or multiplied by a gain (capture-burst/9: under
 * /8 only the median difference was taken out, exactly, and a gain ramp of 1.5 % a frame changed
 * every edge: outside probe of 2026-12-06). Null with too little texture.
 */
export function patchStillShare(a: Uint8Array, b: Uint8Array, side = PATCH_SIDE, aligned = alignPatches(a, b, side)): number | null {
  const r = marginOf(aligned) + 1;
  const at = (i: number) => i + aligned.dy * side + aligned.dx;
  const textured: number[] = [];
  const unclipped: number[] = [];
  for (let y = r; y < side - r; y += 1) {
    for (let x = r; x < side - r; x += 1) {
      const i = y * side + x;
      // A clipped pixel (0 or 255 in either patch) says nothing of change: its level is lost.
      if (a[i]! % 255 === 0 || b[at(i)]! % 255 === 0) continue;
      unclipped.push(i);
      if (isEdge(a, i, side)) textured.push(i);
    }
  }
  if (textured.length < MIN_TEXTURED_PIXELS) return null;
  const { gain, offset } = exposureChange(a, b, at, unclipped);
  let still = 0;
  for (const i of textured) if (Math.abs(b[at(i)]! - gain * a[i]! - offset) <= STILL_TOLERANCE) still += 1;
  return still / textured.length;
}

interface BlockMatch {
  x: number;
  y: number;
  dx: number;
  dy: number;
}

const BLOCK = 12;
/** A block whose pixels vary less than this (std, grey levels) has too little texture to match. */
const MIN_BLOCK_STD = 4;

/** Sub-pixel offset of a minimum from three samples (a parabola through them). */
export function vertex(left: number, centre: number, right: number): number {
  if (!Number.isFinite(left) || !Number.isFinite(right)) return 0;
  const d = left - 2 * centre + right;
  return d > 0 ? Math.max(-0.5, Math.min(0.5, (left - right) / (2 * d))) : 0;
}

/**
 * Motion of each textured BLOCK² block of `a` in `b`: SAD search within ±`radius` px of the
 * predicted shift, `b`'s mean level brought to `a`'s (a change of exposure, or a ramp of levels, is
 * no motion: probe of 2026-12-05, where a still photo with its levels ramped read as parallax),
 * refined to sub-pixel. Blocks too plain to match, or whose minimum is not clear, are left out.
 * One offset for the frame, not one per block: a block's own mean would trade its shift for its
 * level wherever the texture is a slope, and a camera's exposure moves the whole frame.
 */
export function blockMotion(a: GreyFrame, b: GreyFrame, predicted: { dx: number; dy: number }, radius: number): BlockMatch[] {
  const { width: w, height: h } = a;
  const out: BlockMatch[] = [];
  const offset = meanOffset(a.luma, b.luma);
  const px = Math.round(predicted.dx);
  const py = Math.round(predicted.dy);
  const sads = new Float64Array((2 * radius + 1) ** 2);
  for (let y0 = BLOCK; y0 + 2 * BLOCK <= h; y0 += BLOCK) {
    for (let x0 = BLOCK; x0 + 2 * BLOCK <= w; x0 += BLOCK) {
      let sum = 0;
      let sq = 0;
      for (let y = y0; y < y0 + BLOCK; y += 1) {
        for (let x = x0; x < x0 + BLOCK; x += 1) {
          const v = a.luma[y * w + x]!;
          sum += v;
          sq += v * v;
        }
      }
      const n = BLOCK * BLOCK;
      const std = Math.sqrt(Math.max(0, sq / n - (sum / n) ** 2));
      if (std < MIN_BLOCK_STD) continue;
      let best = Infinity;
      let bi = -1;
      for (let sy = -radius; sy <= radius; sy += 1) {
        for (let sx = -radius; sx <= radius; sx += 1) {
          const ox = x0 + px + sx;
          const oy = y0 + py + sy;
          let sad = Infinity;
          if (ox >= 0 && oy >= 0 && ox + BLOCK <= w && oy + BLOCK <= h) {
            sad = 0;
            for (let y = 0; y < BLOCK; y += 1) {
              const ra = (y0 + y) * w + x0;
              const rb = (oy + y) * w + ox;
              for (let x = 0; x < BLOCK; x += 1) sad += Math.abs(a.luma[ra + x]! - b.luma[rb + x]! + offset);
            }
          }
          const i = (sy + radius) * (2 * radius + 1) + sx + radius;
          sads[i] = sad;
          if (sad < best) [best, bi] = [sad, i];
        }
      }
      if (!Number.isFinite(best)) continue;
      const side = 2 * radius + 1;
      const sx = (bi % side) - radius;
      const sy = Math.floor(bi / side) - radius;
      if (Math.abs(sx) === radius || Math.abs(sy) === radius) continue; // at the edge of the search: not a clear minimum
      // An exact match is where it is: the parabola through an asymmetric floor would move it.
      const dx = px + sx + (best === 0 ? 0 : vertex(sads[bi - 1]!, best, sads[bi + 1]!));
      const dy = py + sy + (best === 0 ? 0 : vertex(sads[bi - side]!, best, sads[bi + side]!));
      out.push({ x: x0 + BLOCK / 2, y: y0 + BLOCK / 2, dx, dy });
    }
  }
  return out;
}

/**
 * The shift between consecutive frames: block motion within ±4 px of each of `around` (no motion
 * first), whichever matches more blocks; no motion when none matches a block.
 */
export function pairShift(a: GreyFrame, b: GreyFrame, around: ReadonlyArray<{ dx: number; dy: number }>): { dx: number; dy: number } {
  let best: BlockMatch[] = [];
  const tried = new Set<string>();
  for (const centre of [{ dx: 0, dy: 0 }, ...around]) {
    if (tried.has(`${centre.dx},${centre.dy}`)) continue;
    tried.add(`${centre.dx},${centre.dy}`);
    const blocks = blockMotion(a, b, centre, 4);
    if (blocks.length > best.length) best = blocks;
  }
  return best.length > 0 ? globalShift(best) : { dx: 0, dy: 0 };
}

/** The median block motion: the whole frame's shift. */
export function globalShift(blocks: BlockMatch[]): { dx: number; dy: number } {
  return { dx: median(blocks.map((b) => b.dx)), dy: median(blocks.map((b) => b.dy)) };
}

/** Solves A·x = b (n×n, row-major) by Gaussian elimination with partial pivoting; null if singular. */
export function solve(a: number[][], b: number[]): number[] | null {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c += 1) {
    let p = c;
    for (let r = c + 1; r < n; r += 1) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    if (Math.abs(m[p]![c]!) < 1e-10) return null;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = 0; r < n; r += 1) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      if (f !== 0) for (let k = c; k <= n; k += 1) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

/**
 * Least-squares homography (h33 = 1) taking each block's centre to where it moved, in coordinates
 * centred and scaled to the frame; the distance of each block from it, in pixels.
 */
function homographyResiduals(blocks: BlockMatch[], w: number, h: number): number[] | null {
  const s = 2 / Math.max(w, h);
  const ata = Array.from({ length: 8 }, () => new Array<number>(8).fill(0));
  const atb = new Array<number>(8).fill(0);
  const rows: Array<[number[], number]> = [];
  for (const k of blocks) {
    const x = (k.x - w / 2) * s;
    const y = (k.y - h / 2) * s;
    const u = (k.x + k.dx - w / 2) * s;
    const v = (k.y + k.dy - h / 2) * s;
    rows.push([[x, y, 1, 0, 0, 0, -u * x, -u * y], u], [[0, 0, 0, x, y, 1, -v * x, -v * y], v]);
  }
  for (const [row, rhs] of rows) {
    for (let i = 0; i < 8; i += 1) {
      atb[i]! += row[i]! * rhs;
      for (let j = 0; j < 8; j += 1) ata[i]![j]! += row[i]! * row[j]!;
    }
  }
  const hm = solve(ata, atb);
  if (!hm) return null;
  return blocks.map((k) => {
    const x = (k.x - w / 2) * s;
    const y = (k.y - h / 2) * s;
    const d = hm[6]! * x + hm[7]! * y + 1;
    const u = (hm[0]! * x + hm[1]! * y + hm[2]!) / d;
    const v = (hm[3]! * x + hm[4]! * y + hm[5]!) / d;
    return Math.hypot(u / s + w / 2 - (k.x + k.dx), v / s + h / 2 - (k.y + k.dy));
  });
}

/**
 * Parallax between the burst's first and last frames: block motion (searched around the summed
 * frame-to-frame shifts), one homography fitted, refitted without the worst fifth of the blocks
 * (mismatches), and the RMS distance of the rest from it.
 */
export function parallaxOf(first: GreyFrame, last: GreyFrame, predicted: { dx: number; dy: number }): BurstMeasures["parallax"] {
  // ±10 px around the whole frame's shift: a turning camera moves the corners several px more than the centre.
  const blocks = blockMotion(first, last, predicted, 10);
  if (blocks.length < 9) return null;
  const all = homographyResiduals(blocks, first.width, first.height);
  if (!all) return null;
  const keep = blocks.map((b, i) => [b, all[i]!] as const).sort((p, q) => p[1] - q[1]).slice(0, Math.max(9, Math.ceil(blocks.length * 0.8))).map((p) => p[0]);
  const residuals = homographyResiduals(keep, first.width, first.height);
  if (!residuals) return null;
  const rms = Math.sqrt(residuals.reduce((a, r) => a + r * r, 0) / residuals.length);
  const baseline = blocks.reduce((a, b) => a + Math.hypot(b.dx, b.dy), 0) / blocks.length;
  return { blocks: keep.length, baseline_px: round3(baseline), residual_px: round3(rms) };
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;

/**
 * The measures of consecutive reduced frames (oldest first, `t` in ms) and consecutive native
 * patches of their centre.
 */
export function measureBurst(frames: GreyFrame[], patches: Uint8Array[]): BurstMeasures {
  const n = frames.length;
  const first = frames[0];
  const empty: BurstMeasures = {
    frames: n,
    duration_ms: 0,
    width: first?.width ?? 0,
    height: first?.height ?? 0,
    identical_pairs: 0,
    repeated_frames: 0,
    temporal_noise: 0,
    changed_fraction: 0,
    motion_px: 0,
    parallax: null,
    noise_correlation: null,
    noise_correlation_far: null,
    patch_still_share: null,
    untrimmed_noise: null,
    frame_links: [],
    plain_frames: [],
    patch_pairs: Math.max(0, patches.length - 1),
    aligned_pairs: 0,
  };
  if (n < 2 || !first) return empty;
  let identical = 0;
  let repeated = 0;
  const noise: number[] = [];
  const near: number[] = [];
  const far: number[] = [];
  const untrimmedNoise: number[] = [];
  const stillShares: number[] = [];
  let alignedPairs = 0;
  for (let i = 1; i < patches.length; i += 1) {
    const [a, b] = [patches[i - 1]!, patches[i]!];
    const aligned = alignPatchesWide(a, b, PATCH_SIDE);
    if (!patchesAligned(a, b, PATCH_SIDE, aligned)) continue;
    alignedPairs += 1;
    noise.push(patchNoise(a, b, PATCH_SIDE, aligned));
    const share = patchStillShare(a, b, PATCH_SIDE, aligned);
    if (share !== null) stillShares.push(share);
    const c = noiseCorrelation(a, b, PATCH_SIDE, aligned);
    if (c) {
      near.push(c.near);
      far.push(c.far);
      untrimmedNoise.push(c.sigma);
    }
  }
  const changed: number[] = [];
  const motion: number[] = [];
  const links: Array<number | null> = [];
  let total = { dx: 0, dy: 0 };
  // Where each pair's blocks are searched beside no motion: where a sweeping camera moved (swing.ts).
  const sweep = swingOf(frames);
  for (let i = 1; i < n; i += 1) {
    const a = frames[i - 1]!;
    const b = frames[i]!;
    if (same(a, b)) identical += 1;
    else if (frames.slice(0, i - 1).some((earlier, j) => same(earlier, b) && frames.slice(j + 1, i).some((between) => !same(between, b)))) repeated += 1;
    // Changed beyond the frame's common change of level (exposure, or a ramp of levels: no change of the scene).
    const level = medianDifference(a.luma, b.luma);
    let moved = 0;
    for (let p = 0; p < a.luma.length; p += 1) if (Math.abs(b.luma[p]! - a.luma[p]! - level) > 2) moved += 1;
    changed.push(moved / a.luma.length);
    const shift = pairShift(a, b, searchCentres(sweep, i - 1));
    motion.push(Math.hypot(shift.dx, shift.dy));
    total = { dx: total.dx + shift.dx, dy: total.dy + shift.dy };
    const link = frameLink(a, b, shift);
    links.push(link === null ? null : round3(link));
  }
  return {
    ...empty,
    duration_ms: Math.round(frames[n - 1]!.t - first.t),
    identical_pairs: identical,
    repeated_frames: repeated,
    temporal_noise: round3(median(noise)),
    changed_fraction: round3(median(changed)),
    motion_px: round3(median(motion)),
    parallax: parallaxOf(first, frames[n - 1]!, total),
    noise_correlation: near.length > 0 ? round3(median(near)) : null,
    noise_correlation_far: far.length > 0 ? round3(median(far)) : null,
    patch_still_share: stillShares.length > 0 ? round3(median(stillShares)) : null,
    untrimmed_noise: untrimmedNoise.length > 0 ? round3(median(untrimmedNoise)) : null,
    frame_links: links,
    plain_frames: frames.flatMap((f, i) => (frameStd(f.luma) < MIN_LINK_STD ? [i] : [])),
    aligned_pairs: alignedPairs,
  };
}
