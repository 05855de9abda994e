import { depthPngRows, type DepthRows } from "../decoders/depth-png";
import type { DepthResult, Evidence } from "../evidence";
import { clamp01, round2 } from "../evidence";

export const DEPTH_PLANE_VERSION = "depth-plane/1";

/** Relative RMS residual (residual / median depth) at or below which a scene is flat. */
export const PLANAR_RELATIVE_RMS = 0.02;
/** Relative RMS residual at which a scene is confidently three-dimensional. */
export const SCENE_RELATIVE_RMS = 0.06;
/** Fewer valid (non-zero) pixels than this fraction and the map says nothing. */
const MIN_VALID_FRACTION = 0.25;
/** Plane fits use at most this many samples (a regular subsample of the valid pixels). */
const MAX_SAMPLES = 40_000;

export interface DepthMap {
  width: number;
  height: number;
  /** Millimetres; 0 means unknown. */
  data: Uint16Array;
}

/**
 * The depth signal of a forensic buffer, streamed from the PNG (decoders/depth-png.ts: the photos'
 * header check and limits). Throws DecodeFailure when it is not a readable 16-bit grayscale PNG.
 */
export function analyzeDepthPng(bytes: Uint8Array): DepthResult {
  return analyzeDepthRows(depthPngRows(bytes));
}

/** The same for a map already in memory. */
export function analyzeDepth(map: DepthMap): DepthResult {
  const { width, height, data } = map;
  return analyzeDepthRows({ width, height, each: (visit) => { for (let y = 0; y < height; y += 1) visit(data.subarray(y * width, (y + 1) * width), y); } });
}

export function depthUnavailable(code: string, detail?: string): DepthResult {
  return {
    source: "unavailable",
    confidence: 0,
    anomaly: false,
    provider: "offline-depth-plane",
    method_version: DEPTH_PLANE_VERSION,
    evidence: [{ code, ...(detail ? { detail } : {}) }],
  };
}

/** The fit's grid: every `step`-th pixel of every `step`-th row, for at most MAX_SAMPLES of `count` pixels. */
const gridStep = (count: number) => Math.max(1, Math.ceil(Math.sqrt(count / MAX_SAMPLES)));

/** The valid pixels of the grid, as (u, v, z) with coordinates centred for numerical stability. */
function sampleGrid(map: DepthRows, step: number, onRow?: (row: Uint16Array) => void): number[] {
  const cx = map.width / 2;
  const cy = map.height / 2;
  const samples: number[] = [];
  map.each((row, y) => {
    onRow?.(row);
    if (y % step !== 0) return;
    for (let x = 0; x < map.width; x += step) {
      const z = row[x]!;
      if (z !== 0) samples.push(x - cx, y - cy, z);
    }
  });
  return samples;
}

/**
 * Least-squares plane fit z = a·x + b·y + c over the valid pixels. A screen or a print held to the
 * camera is flat: its residual is tiny compared with its distance. A real scene is not.
 * `confidence` is the confidence that the scene is three-dimensional. One pass counts the valid
 * pixels and samples the grid the map's size allows; a sparse map's finer grid (the valid pixels
 * alone decide it) takes a second pass.
 */
function analyzeDepthRows(map: DepthRows): DepthResult {
  const total = map.width * map.height;
  let valid = 0;
  let samples = sampleGrid(map, gridStep(total), (row) => {
    for (let x = 0; x < row.length; x += 1) if (row[x]! > 0) valid += 1;
  });
  const validFraction = total > 0 ? valid / total : 0;
  if (validFraction < MIN_VALID_FRACTION) {
    return depthUnavailable("depth_insufficient_valid_pixels", `${Math.round(validFraction * 100)}% valid`);
  }
  if (gridStep(valid) !== gridStep(total)) samples = sampleGrid(map, gridStep(valid));
  let sxx = 0, sxy = 0, syy = 0, sx = 0, sy = 0, n = 0, sxz = 0, syz = 0, sz = 0;
  for (let i = 0; i < samples.length; i += 3) {
    const u = samples[i]!;
    const v = samples[i + 1]!;
    const z = samples[i + 2]!;
    sxx += u * u; sxy += u * v; syy += v * v; sx += u; sy += v; n += 1;
    sxz += u * z; syz += v * z; sz += z;
  }
  const solved = solve3([
    [sxx, sxy, sx, sxz],
    [sxy, syy, sy, syz],
    [sx, sy, n, sz],
  ]);
  if (!solved) return depthUnavailable("depth_fit_degenerate");
  const [a, b, c] = solved;
  let sq = 0;
  const depths: number[] = [];
  for (let i = 0; i < samples.length; i += 3) {
    const r = samples[i + 2]! - (a * samples[i]! + b * samples[i + 1]! + c);
    sq += r * r;
    depths.push(samples[i + 2]!);
  }
  depths.sort((p, q) => p - q);
  const median = depths[Math.floor(depths.length / 2)]!;
  const rms = Math.sqrt(sq / n);
  const relative = rms / Math.max(1, median);
  const confidence = clamp01((relative - PLANAR_RELATIVE_RMS) / (SCENE_RELATIVE_RMS - PLANAR_RELATIVE_RMS)) * Math.min(1, validFraction / 0.6);
  const anomaly = relative <= PLANAR_RELATIVE_RMS;
  const evidence: Evidence[] = [
    { code: anomaly ? "depth_planar" : "depth_non_planar", value: round2(relative * 1000) / 1000, detail: "relative RMS residual of the plane fit" },
    { code: "depth_valid_fraction", value: round2(validFraction) },
    { code: "depth_median_mm", value: median },
  ];
  return {
    source: "forensic_buffer",
    confidence: round2(confidence),
    anomaly,
    provider: "offline-depth-plane",
    method_version: DEPTH_PLANE_VERSION,
    evidence,
  };
}

/** Gauss–Jordan elimination with partial pivoting on a 3×4 augmented matrix. */
function solve3(m: number[][]): [number, number, number] | null {
  for (let col = 0; col < 3; col += 1) {
    let pivot = col;
    for (let r = col + 1; r < 3; r += 1) if (Math.abs(m[r]![col]!) > Math.abs(m[pivot]![col]!)) pivot = r;
    if (Math.abs(m[pivot]![col]!) < 1e-12) return null;
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    for (let r = 0; r < 3; r += 1) {
      if (r === col) continue;
      const f = m[r]![col]! / m[col]![col]!;
      for (let k = col; k < 4; k += 1) m[r]![k]! -= f * m[col]![k]!;
    }
  }
  return [m[0]![3]! / m[0]![0]!, m[1]![3]! / m[1]![1]!, m[2]![3]! / m[2]![2]!];
}
