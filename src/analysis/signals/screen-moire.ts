import FFT from "fft.js";
import type { Evidence, ScreenResult } from "../evidence";
import { round2 } from "../evidence";
import type { Rect, Tile } from "../pixels";

export const SCREEN_MOIRE_VERSION = "screen-moire/1";

/** A tile's grid score (peak / median of the residual spectrum) at which a pixel grid is declared. */
export const GRID_RATIO_THRESHOLD = 40;
/** Peaks on the 8×8 JPEG block lattice must be this many times stronger to count (blocking artefacts). */
const BLOCK_LATTICE_FACTOR = 4;
/** Two peak directions closer than this (degrees, modulo 180) are one direction: stripes, not a grid. */
const MIN_DIRECTION_GAP_DEG = 20;
/** Moiré alone never claims more than this: recapture can be made alias-free (docs/signals.md). */
const MOIRE_CONFIDENCE_CAP = 0.7;
const MAX_TILE = 256;
const MIN_TILE = 64;

export interface TileScore {
  x: number;
  y: number;
  size: number;
  /** Ratio of the weaker of the two strongest non-collinear peaks to the spectrum median. */
  grid_ratio: number;
  /** Ratio of the strongest peak, whatever its direction. */
  peak_ratio: number;
  /** Spatial period (pixels) of the strongest peak. */
  period_px: number | null;
}

export interface MoireMeasurement {
  tiles: TileScore[];
  /** Median tile grid ratio: the image's moiré strength. */
  strength: number;
  /** Tiles whose grid ratio passed the threshold. */
  tiles_over: number;
}

/** Depth corroboration: a flat scene supports a recapture, a clearly 3-D one argues against it. */
export interface DepthHint {
  anomaly: boolean;
  confidence: number;
}

/**
 * Recapture detection from the pixels: a screen's pixel lattice, resampled by the camera, leaves
 * periodic peaks in two directions in the spectrum of the high-pass residual. Stripes, fences and
 * fabric give peaks along one direction only and are ignored; JPEG blocking sits on a known lattice
 * and must be much stronger to count.
 */
export function detectScreen(image: { width: number; height: number; tiles: Tile[] } | null, depth: DepthHint | null): ScreenResult {
  const base = { provider: "offline-moire", method_version: SCREEN_MOIRE_VERSION };
  if (!image) {
    return { ...base, screen_detected: false, confidence: 0, evidence: [{ code: "pixels_unavailable", detail: "no decoder for this media type" }] };
  }
  const m = measureMoire(image.tiles);
  if (!m) {
    return { ...base, screen_detected: false, confidence: 0, evidence: [{ code: "image_too_small", value: `${image.width}x${image.height}` }] };
  }
  const evidence: Evidence[] = [];
  const best = [...m.tiles].sort((a, b) => b.grid_ratio - a.grid_ratio)[0]!;
  const majority = m.tiles_over * 2 >= m.tiles.length;
  const strength = m.strength;
  let detected = majority && strength >= GRID_RATIO_THRESHOLD;
  let confidence: number;
  if (detected) {
    evidence.push({ code: "moire_grid_peaks", value: round2(strength), detail: `${m.tiles_over}/${m.tiles.length} tiles; period ≈ ${best.period_px ?? "?"} px` });
    confidence = Math.min(MOIRE_CONFIDENCE_CAP, 0.45 + 0.25 * Math.min(1, Math.log10(strength / GRID_RATIO_THRESHOLD)));
  } else {
    const maxPeak = Math.max(...m.tiles.map((t) => t.peak_ratio));
    if (maxPeak >= GRID_RATIO_THRESHOLD && strength < GRID_RATIO_THRESHOLD / 2) {
      evidence.push({ code: "one_directional_periodicity", value: round2(maxPeak), detail: "stripes or texture, not a pixel grid" });
    }
    evidence.push({ code: "no_grid_peaks", value: round2(strength) });
    // Absence of moiré is weak evidence of a real scene: at most 0.5.
    confidence = 0.5 * (1 - Math.min(1, strength / GRID_RATIO_THRESHOLD));
  }
  if (depth) {
    if (depth.anomaly) {
      if (detected) {
        evidence.push({ code: "depth_planar_corroborates" });
        confidence = Math.min(0.9, confidence + 0.2);
      } else if (strength >= GRID_RATIO_THRESHOLD / 2) {
        evidence.push({ code: "weak_moire_with_planar_depth", value: round2(strength) });
        detected = true;
        confidence = 0.6;
      }
    } else if (depth.confidence >= 0.7) {
      evidence.push({ code: detected ? "depth_contradicts_screen" : "depth_supports_scene", value: round2(depth.confidence) });
      confidence = detected ? confidence * 0.6 : Math.min(0.7, confidence + 0.2);
    }
  }
  return { ...base, screen_detected: detected, confidence: round2(confidence), evidence };
}

/**
 * The native-resolution regions the detector reads: up to five square tiles (centre and the four
 * quadrant centres), 256 px or the largest power of two that fits.
 */
export function screenTileRects(width: number, height: number): Rect[] {
  const side = Math.min(width, height);
  if (side < MIN_TILE) return [];
  let size = MAX_TILE;
  while (size > side) size /= 2;
  const centres: Array<[number, number]> = [
    [0.5, 0.5],
    [0.25, 0.25],
    [0.75, 0.25],
    [0.25, 0.75],
    [0.75, 0.75],
  ];
  const seen = new Set<string>();
  const rects: Rect[] = [];
  for (const [cx, cy] of centres) {
    const x = Math.max(0, Math.min(width - size, Math.round(cx * width - size / 2)));
    const y = Math.max(0, Math.min(height - size, Math.round(cy * height - size / 2)));
    const key = `${x},${y}`;
    if (seen.has(key)) continue;
    seen.add(key);
    rects.push({ x, y, width: size, height: size });
  }
  return rects;
}

/** Scores the tiles of `screenTileRects` (square, power-of-two sides). */
export function measureMoire(tiles: Tile[]): MoireMeasurement | null {
  const usable = tiles.filter((t) => t.width === t.height && t.width >= MIN_TILE && (t.width & (t.width - 1)) === 0);
  if (usable.length === 0) return null;
  const ffts = new Map<number, FFT>();
  const scores = usable.map((tile) => {
    let fft = ffts.get(tile.width);
    if (!fft) ffts.set(tile.width, (fft = new FFT(tile.width)));
    return scoreTile(tile, fft);
  });
  const ratios = scores.map((t) => t.grid_ratio).sort((a, b) => a - b);
  return {
    tiles: scores,
    strength: ratios[Math.floor((ratios.length - 1) / 2)]!,
    tiles_over: scores.filter((t) => t.grid_ratio >= GRID_RATIO_THRESHOLD).length,
  };
}

interface Peak {
  u: number;
  v: number;
  ratio: number;
}

function scoreTile(tile: Tile, fft: FFT): TileScore {
  const n = tile.width;
  // High-pass residual (pixel minus its 3×3 mean), Hann-windowed, as a complex 2-D array.
  const re = new Float64Array(n * n);
  const im = new Float64Array(n * n);
  const hann = new Float64Array(n);
  for (let i = 0; i < n; i += 1) hann[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (n - 1));
  const { width, height, data } = tile;
  for (let y = 0; y < n; y += 1) {
    for (let x = 0; x < n; x += 1) {
      let sum = 0;
      for (let dy = -1; dy <= 1; dy += 1) {
        const row = Math.min(height - 1, Math.max(0, y + dy)) * width;
        for (let dx = -1; dx <= 1; dx += 1) sum += data[row + Math.min(width - 1, Math.max(0, x + dx))]!;
      }
      re[y * n + x] = (data[y * width + x]! - sum / 9) * hann[x]! * hann[y]!;
    }
  }
  fft2d(re, im, n, fft);

  // Magnitudes over the upper half-plane (the spectrum of a real signal is symmetric), mid/high band.
  const half = n / 2;
  const minRadius = n / 16;
  const mags = new Float64Array(n * n);
  const band: number[] = [];
  for (let v = 0; v <= half; v += 1) {
    for (let u = -half + 1; u <= half; u += 1) {
      const r = Math.hypot(u, v);
      if (r < minRadius || r > half) continue;
      const idx = ((v + n) % n) * n + ((u + n) % n);
      const mag = Math.hypot(re[idx]!, im[idx]!);
      mags[idx] = mag;
      band.push(mag);
    }
  }
  band.sort((a, b) => a - b);
  const median = band[Math.floor(band.length / 2)] || 1e-9;

  const peaks: Peak[] = [];
  const lattice = n / 8;
  for (let v = 0; v <= half; v += 1) {
    for (let u = -half + 1; u <= half; u += 1) {
      const r = Math.hypot(u, v);
      if (r < minRadius || r > half) continue;
      const mag = mags[((v + n) % n) * n + ((u + n) % n)]!;
      const ratio = mag / median;
      if (ratio < GRID_RATIO_THRESHOLD / 4) continue;
      if (!isLocalMax(mags, n, u, v, mag)) continue;
      const onLattice = nearMultiple(u, lattice) && nearMultiple(v, lattice);
      const effective = onLattice ? ratio / BLOCK_LATTICE_FACTOR : ratio;
      peaks.push({ u, v, ratio: effective });
    }
  }
  peaks.sort((a, b) => b.ratio - a.ratio);
  const first = peaks[0];
  let second: Peak | undefined;
  if (first) {
    const a1 = direction(first);
    second = peaks.find((p) => angleGap(direction(p), a1) >= MIN_DIRECTION_GAP_DEG);
  }
  return {
    x: tile.x,
    y: tile.y,
    size: n,
    grid_ratio: second ? second.ratio : 0,
    peak_ratio: first ? first.ratio : 0,
    period_px: first ? Math.round((n / Math.hypot(first.u, first.v)) * 10) / 10 : null,
  };
}

function fft2d(re: Float64Array, im: Float64Array, n: number, fft: FFT): void {
  const input = fft.createComplexArray() as number[];
  const output = fft.createComplexArray() as number[];
  for (let y = 0; y < n; y += 1) {
    for (let x = 0; x < n; x += 1) {
      input[2 * x] = re[y * n + x]!;
      input[2 * x + 1] = im[y * n + x]!;
    }
    fft.transform(output, input);
    for (let x = 0; x < n; x += 1) {
      re[y * n + x] = output[2 * x]!;
      im[y * n + x] = output[2 * x + 1]!;
    }
  }
  for (let x = 0; x < n; x += 1) {
    for (let y = 0; y < n; y += 1) {
      input[2 * y] = re[y * n + x]!;
      input[2 * y + 1] = im[y * n + x]!;
    }
    fft.transform(output, input);
    for (let y = 0; y < n; y += 1) {
      re[y * n + x] = output[2 * y]!;
      im[y * n + x] = output[2 * y + 1]!;
    }
  }
}

function isLocalMax(mags: Float64Array, n: number, u: number, v: number, mag: number): boolean {
  for (let dv = -1; dv <= 1; dv += 1) {
    for (let du = -1; du <= 1; du += 1) {
      if (du === 0 && dv === 0) continue;
      const idx = (((v + dv) % n + n) % n) * n + (((u + du) % n + n) % n);
      if (mags[idx]! > mag) return false;
    }
  }
  return true;
}

function nearMultiple(value: number, step: number): boolean {
  const r = ((value % step) + step) % step;
  return r <= 1 || r >= step - 1;
}

function direction(p: Peak): number {
  return ((Math.atan2(p.v, p.u) * 180) / Math.PI + 180) % 180;
}

function angleGap(a: number, b: number): number {
  const d = Math.abs(a - b) % 180;
  return Math.min(d, 180 - d);
}
