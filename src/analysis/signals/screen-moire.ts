import { median } from "../../lib/median";
import { selectNth } from "../../lib/select-nth";
import FFT from "fft.js";
import type { Evidence, ScreenResult } from "../evidence";
import { round2 } from "../evidence";
import type { Rect, Tile } from "../decoders";

export const SCREEN_MOIRE_VERSION = "screen-moire/6";

/** A tile's grid score (peak / median of the residual spectrum) at which a pixel grid is declared. */
export const GRID_RATIO_THRESHOLD = 22;
/** Peaks on the 8×8 JPEG block lattice must be this many times stronger to count (blocking artefacts). */
const BLOCK_LATTICE_FACTOR = 4;
/** Peaks this close (bins) to a stronger one are its sidebands. */
const SIDEBAND_RADIUS = 6;
/** A peak at a block-lattice shift of a stronger one is its copy when at most this fraction of it. */
const BLOCK_COPY_MAX_RATIO = 0.5;
/** A peak at an axis-parallel shift of a stronger one is its (resampled) Bayer copy when at most this fraction of it. */
const MOSAIC_COPY_MAX_RATIO = 0.45;
/** How far (bins) from an axis such a shift may lie. */
const MOSAIC_COPY_TOLERANCE = 1.5;
/** Peaks weaker than this (× the band median) are not considered at all. */
const PEAK_FLOOR = GRID_RATIO_THRESHOLD / 4;
/** The strongest peaks of a tile that take part in the lattice tests. */
const MAX_PEAKS = 12;
/** Lowest frequency (bins) considered a peak rather than the image's own low-frequency content. */
const LOW_MIN_RADIUS = 3;
/**
 * A display's pixel lattice, as a camera records it, repeats every 1.3 to about 5.5 sensor pixels
 * (more means only a few hundred display pixels across the frame); a PenTile panel's red/blue
 * checkerboard repeats at √2 × that, under 8. Lattices of 8 px and coarser are scene textures:
 * tiles, weaves, meshes, chessboards.
 */
const MAX_DISPLAY_PERIOD_PX = 7.9;
/** The strongest peak of a 1-D pattern is its fundamental or a low harmonic: roots tried. */
const MAX_ROOT = 3;
/** Harmonic orders tried when explaining a peak by another (1-D comb, coarse lattice). */
const MAX_HARMONIC = 9;
/** Highest order of each generator when a peak is explained by two coarse generators. */
const MAX_LATTICE_ORDER = 5;
/** A coarse texture's generators must stand out at least this much (× the band median). */
const COARSE_GENERATOR_RATIO = PEAK_FLOOR;
/** Position tolerance (bins) for a harmonic match, scaled by the harmonic order. */
const COMB_TOLERANCE = 0.8;
/** Tiles agree on a lattice when their periods differ by at most this fraction (perspective). */
const PERIOD_AGREEMENT = 0.2;
/** A grid this fraction of the threshold counts when a flat depth map corroborates it. */
export const WEAK_GRID_WITH_FLAT_DEPTH = 0.75;
/**
 * A lattice whose two directions are this close in strength (weaker / stronger) is square-symmetric:
 * a mesh, a weave, a chessboard, decking, a woven fabric. A display's sub-pixels make its lattice
 * anisotropic (RGB stripes in one direction, a thin black matrix in the other). Such a lattice is
 * cleared as a scene texture (screen-moire/6): on camera photos of real scenes every lattice the
 * detector took for a display was square-symmetric, on camera photos of displays few were.
 */
export const SYMMETRIC_LATTICE = 0.85;
/**
 * A texture in the scene multiplies it with one modulation depth everywhere (amplitude ∝ local
 * brightness); a display's lattice, in luma, is modulated by the displayed colour too. The variation
 * (coefficient of variation over a tile's 4×4 sub-windows) under which the depth counts as uniform:
 * reported as evidence; screen-moire/4 and /5 cleared only symmetric lattices of uniform depth, which
 * left real textures lit unevenly (measured: docs/signals.md).
 */
export const UNIFORM_DEPTH_VARIATION = 0.3;
/**
 * A tile's vote weighs 1 / (1 + g / BUSY_SCENE_GRADIENT), g being its scene gradient (the mean step,
 * in grey levels, between neighbouring 8×8 block means). A busy region's own edges raise the
 * residual spectrum's floor and put peaks of their own in it, so the lattice stands out less there:
 * such a tile says little either way, and a lattice seen on the calm tiles is not outvoted by it.
 */
export const BUSY_SCENE_GRADIENT = 4;
/** Block side (px) over which the scene gradient is measured: above a display's lattice period. */
const SCENE_BLOCK = 8;
/** Sub-windows per side over which a tile's lattice is demodulated. */
const DEPTH_WINDOWS = 4;
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
  /** Periodicity that is not a display's: a 1-D pattern (stripes) or a lattice too coarse for one. */
  texture: "one_directional" | "coarse" | null;
  /** For a tile that counts: strength of the grid's second direction over its first (1: square-symmetric). */
  symmetry: number | null;
  /** For a tile that counts: how much the first direction's modulation depth varies across the tile. */
  depth_variation: number | null;
  /** Mean step between neighbouring 8×8 block means (grey levels): how busy the scene is here. */
  scene_gradient: number;
  /** The tile's vote: 1 / (1 + scene_gradient / BUSY_SCENE_GRADIENT). */
  weight: number;
}

export interface MoireMeasurement {
  tiles: TileScore[];
  /**
   * The image's moiré strength: the weighted median of the tiles' grid ratios (tiles over the
   * threshold that disagree on the period count 0), i.e. the highest ratio reached by tiles holding
   * more than half of the weight. With equal weights, the median.
   */
  strength: number;
  /** Tiles whose grid ratio passed the threshold and agree on the lattice's period. */
  tiles_over: number;
  /** Their share of the tiles' weight (0–1). */
  weight_over: number;
  /** Tiles whose periodicity is a coarse texture's. */
  coarse_tiles: number;
  /** Tiles whose periodicity runs in one direction only (stripes). */
  one_directional_tiles: number;
  /** Median `symmetry` of the tiles over the threshold (null when none is). */
  symmetry: number | null;
  /** Median `depth_variation` of the tiles over the threshold. */
  depth_variation: number | null;
}

/** Depth corroboration: a flat scene supports a recapture, a clearly 3-D one argues against it. */
export interface DepthHint {
  anomaly: boolean;
  confidence: number;
}

/**
 * Recapture detection from the pixels: a screen's pixel lattice, resampled by the camera, leaves
 * periodic peaks in two independent directions in the spectrum of the high-pass residual, with the
 * same period across the frame. Not a display: a 1-D pattern (stripes at any angle, whose aliased
 * harmonics land in other directions), a lattice coarser than a display's (tiles, weaves, meshes,
 * chessboards: the band peaks are harmonics of coarse fundamentals), JPEG block and Bayer copies of
 * another peak.
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
  const strength = m.strength;
  const sceneLattice = isSymmetricLattice(m);
  // Tiles holding more than half of the weight agree on one lattice over the threshold.
  let detected = strength >= GRID_RATIO_THRESHOLD;
  if (detected && sceneLattice) {
    detected = false;
    evidence.push({
      code: "symmetric_lattice",
      value: round2(m.symmetry!),
      detail: `square-symmetric lattice (modulation depth variation ${round2(m.depth_variation!)}): a fine scene texture, not a display's sub-pixels`,
    });
  }
  let confidence: number;
  if (detected) {
    evidence.push({ code: "moire_grid_peaks", value: round2(strength), detail: `${m.tiles_over}/${m.tiles.length} tiles (${Math.round(m.weight_over * 100)} % of the weight); period ≈ ${best.period_px ?? "?"} px` });
    confidence = Math.min(MOIRE_CONFIDENCE_CAP, 0.45 + 0.25 * Math.min(1, Math.log10(strength / GRID_RATIO_THRESHOLD)));
  } else {
    if (m.one_directional_tiles * 2 >= m.tiles.length) evidence.push({ code: "one_directional_periodicity", value: m.one_directional_tiles, detail: "stripes or a 1-D texture, not a pixel grid" });
    if (m.coarse_tiles * 2 >= m.tiles.length) evidence.push({ code: "coarse_periodic_texture", value: m.coarse_tiles, detail: `a lattice coarser than ${MAX_DISPLAY_PERIOD_PX} px: a scene texture, not a display` });
    evidence.push({ code: "no_grid_peaks", value: round2(strength) });
    // Absence of moiré is weak evidence of a real scene: at most 0.5.
    confidence = 0.5 * (1 - Math.min(1, strength / GRID_RATIO_THRESHOLD));
  }
  if (depth) {
    if (depth.anomaly) {
      if (detected) {
        evidence.push({ code: "depth_planar_corroborates" });
        confidence = Math.min(0.9, confidence + 0.2);
      } else if (!sceneLattice && strength >= WEAK_GRID_WITH_FLAT_DEPTH * GRID_RATIO_THRESHOLD) {
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

/** A square-symmetric grid is a texture in the scene (a mesh, weave, decking repeating every < 8 px), not a display. */
function isSymmetricLattice(m: MoireMeasurement): boolean {
  return m.symmetry !== null && m.symmetry >= SYMMETRIC_LATTICE;
}

/**
 * The native-resolution regions the detector reads: a 3×3 grid of square tiles (256 px, or the
 * largest power of two that fits) centred at a sixth, a half and five sixths of each side, so a
 * display's lattice has to show across the whole frame. Nine 256-px tiles are 0.6 MP whatever the
 * photo's size: the detector's cost and memory do not grow with the image.
 */
export function screenTileRects(width: number, height: number): Rect[] {
  const side = Math.min(width, height);
  if (side < MIN_TILE) return [];
  let size = MAX_TILE;
  while (size > side) size /= 2;
  const seen = new Set<string>();
  const rects: Rect[] = [];
  for (const cy of [1 / 6, 1 / 2, 5 / 6]) {
    for (const cx of [1 / 6, 1 / 2, 5 / 6]) {
      const x = Math.max(0, Math.min(width - size, Math.round(cx * width - size / 2)));
      const y = Math.max(0, Math.min(height - size, Math.round(cy * height - size / 2)));
      const key = `${x},${y}`;
      if (seen.has(key)) continue;
      seen.add(key);
      rects.push({ x, y, width: size, height: size });
    }
  }
  return rects;
}

/** Scores the tiles of `screenTileRects` (square, power-of-two sides). */
export function measureMoire(tiles: Tile[]): MoireMeasurement | null {
  const usable = tiles.filter((t) => t.width === t.height && t.width >= MIN_TILE && (t.width & (t.width - 1)) === 0);
  if (usable.length === 0) return null;
  const workspaces = new Map<number, Workspace>();
  const scores = usable.map((tile) => {
    let workspace = workspaces.get(tile.width);
    if (!workspace) workspaces.set(tile.width, (workspace = newWorkspace(tile.width)));
    return scoreTile(tile, workspace);
  });
  // A display is one rigid lattice: the tiles that see a grid must agree on its period (within the
  // spread a tilted screen's perspective gives).
  const over = scores.filter((t) => t.grid_ratio >= GRID_RATIO_THRESHOLD && t.period_px !== null);
  const periods = over.map((t) => t.period_px!).sort((a, b) => a - b);
  const typical = periods[Math.floor((periods.length - 1) / 2)];
  const agreeing = typical === undefined ? [] : over.filter((t) => Math.abs(t.period_px! - typical) <= PERIOD_AGREEMENT * typical);
  const ratios = scores.map((t) => ({ ratio: agreeing.includes(t) || t.grid_ratio < GRID_RATIO_THRESHOLD ? t.grid_ratio : 0, weight: t.weight }));
  const counted = scores.filter((t) => t.grid_ratio >= GRID_RATIO_THRESHOLD);
  const total = sum(scores.map((t) => t.weight));
  return {
    tiles: scores,
    strength: weightedUpperHalfMin(ratios),
    weight_over: sum(agreeing.map((t) => t.weight)) / total,
    symmetry: medianOrNull(counted.map((t) => t.symmetry!)),
    depth_variation: medianOrNull(counted.map((t) => t.depth_variation!)),
    tiles_over: agreeing.length,
    coarse_tiles: scores.filter((t) => t.texture === "coarse").length,
    one_directional_tiles: scores.filter((t) => t.texture === "one_directional").length,
  };
}

interface Peak {
  /** Refined (sub-bin) frequency, bins; v ≥ 0 (upper half-plane). */
  u: number;
  v: number;
  ratio: number;
}

/**
 * One tile size's buffers, reused by every tile of that size: the analysis' peak memory holds the
 * decoder's garbage too, and nine tiles' worth of fresh 2 MB arrays sat on top of it.
 */
interface Workspace {
  fft: FFT;
  hann: Float64Array;
  re: Float64Array;
  im: Float64Array;
  residual: Float64Array;
  mags: Float64Array;
  /** One row's 3-pixel sums (edges clamped), three rows kept: the residual's 3×3 mean, separably. */
  rowSums: Float64Array;
  /** Indices into `mags` of the mid/high band whose median is the noise floor, and a buffer to sort them in. */
  band: Int32Array;
  bandValues: Float64Array;
  /** The peak search's bins in scan order (v up, then u): index into `mags`, u, v and radius. */
  bins: { index: Int32Array; u: Int32Array; v: Int32Array; r: Float64Array };
}

/** The bins' geometry of one tile size (the same for every tile and every photo), made once per isolate. */
const geometries = new Map<number, Pick<Workspace, "hann" | "band" | "bins">>();

function newWorkspace(n: number): Workspace {
  let geometry = geometries.get(n);
  if (!geometry) geometries.set(n, (geometry = tileGeometry(n)));
  return {
    ...geometry,
    fft: new FFT(n),
    re: new Float64Array(n * n),
    im: new Float64Array(n * n),
    residual: new Float64Array(n * n),
    mags: new Float64Array(n * n),
    rowSums: new Float64Array(3 * n),
    bandValues: new Float64Array(geometry.band.length),
  };
}

function tileGeometry(n: number): Pick<Workspace, "hann" | "band" | "bins"> {
  const hann = new Float64Array(n);
  for (let i = 0; i < n; i += 1) hann[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (n - 1));
  const half = n / 2;
  const minRadius = n / 16;
  const band: number[] = [];
  const bins = { index: [] as number[], u: [] as number[], v: [] as number[], r: [] as number[] };
  for (let v = 0; v <= half; v += 1) {
    for (let u = -half + 1; u <= half; u += 1) {
      const r = Math.hypot(u, v);
      const index = v * n + ((u + n) % n);
      if (r >= minRadius && r <= half) band.push(index);
      if (r < LOW_MIN_RADIUS || (v === 0 && u < 0)) continue;
      bins.index.push(index);
      bins.u.push(u);
      bins.v.push(v);
      bins.r.push(r);
    }
  }
  return {
    hann,
    band: Int32Array.from(band),
    bins: { index: Int32Array.from(bins.index), u: Int32Array.from(bins.u), v: Int32Array.from(bins.v), r: Float64Array.from(bins.r) },
  };
}

/**
 * The high-pass residual (pixel minus its 3×3 mean, edges clamped) into `residual`, and Hann-windowed
 * into `re`. The 3×3 sum is taken as three rows' 3-pixel sums: integers, so exactly the direct sum.
 */
function windowedResidual(tile: Tile, workspace: Workspace): void {
  const n = tile.width;
  const { hann, re, residual, rowSums } = workspace;
  const { data } = tile;
  const rowSum = (y: number) => {
    const at = (y % 3) * n;
    const row = y * n;
    for (let x = 0; x < n; x += 1) rowSums[at + x] = data[row + (x > 0 ? x - 1 : 0)]! + data[row + x]! + data[row + (x < n - 1 ? x + 1 : n - 1)]!;
  };
  rowSum(0);
  for (let y = 0; y < n; y += 1) {
    // Rows y-1 and y are summed; y+1 takes the slot of y-2, which no pixel needs any more.
    if (y + 1 < n) rowSum(y + 1);
    const above = ((y > 0 ? y - 1 : 0) % 3) * n;
    const here = (y % 3) * n;
    const below = ((y < n - 1 ? y + 1 : n - 1) % 3) * n;
    for (let x = 0; x < n; x += 1) {
      const i = y * n + x;
      residual[i] = data[i]! - (rowSums[above + x]! + rowSums[here + x]! + rowSums[below + x]!) / 9;
      re[i] = residual[i]! * hann[x]! * hann[y]!;
    }
  }
}

function scoreTile(tile: Tile, workspace: Workspace): TileScore {
  const n = tile.width;
  const { fft, re, im, residual, mags, band, bandValues, bins } = workspace;
  windowedResidual(tile, workspace);
  fft2dReal(re, im, n, fft);
  for (let i = 0; i < n * n; i += 1) mags[i] = Math.sqrt(re[i]! * re[i]! + im[i]! * im[i]!);
  const at = (u: number, v: number) => mags[(((v % n) + n) % n) * n + (((u % n) + n) % n)]!;

  // The mid/high band's median is the noise floor the peaks are measured against.
  const half = n / 2;
  const minRadius = n / 16;
  for (let i = 0; i < band.length; i += 1) bandValues[i] = mags[band[i]!]!;
  const median = selectNth(bandValues, Math.floor(bandValues.length / 2)) || 1e-9;

  // Peaks anywhere but the DC neighbourhood, so a coarse texture's fundamentals are seen too; the
  // grid itself must lie in the band.
  const lattice = n / 8;
  const peaks: Peak[] = [];
  const low: Peak[] = [];
  for (let b = 0; b < bins.index.length; b += 1) {
    const mag = mags[bins.index[b]!]!;
    const ratio = mag / median;
    if (ratio < PEAK_FLOOR) continue;
    const u = bins.u[b]!;
    const v = bins.v[b]!;
    if (!isLocalMax(at, u, v, mag)) continue;
    const peak = refine(at, u, v, ratio);
    const r = bins.r[b]!;
    if (r < minRadius) {
      low.push(peak);
      continue;
    }
    if (r > half) continue;
    const onBlockLattice = nearMultiple(u, lattice) && nearMultiple(v, lattice);
    peaks.push(onBlockLattice ? { ...peak, ratio: ratio / BLOCK_LATTICE_FACTOR } : peak);
  }
  peaks.sort((a, b) => b.ratio - a.ratio);
  low.sort((a, b) => b.ratio - a.ratio);
  const strong = peaks.slice(0, MAX_PEAKS);
  const first = strong[0];
  const gradient = sceneGradient(tile);
  const base = { x: tile.x, y: tile.y, size: n, scene_gradient: gradient, weight: 1 / (1 + gradient / BUSY_SCENE_GRADIENT), symmetry: null, depth_variation: null, peak_ratio: first?.ratio ?? 0, period_px: first ? Math.round((n / Math.hypot(first.u, first.v)) * 10) / 10 : null };
  if (!first) return { ...base, grid_ratio: 0, texture: null };

  // Generators of a coarser periodic pattern: clear peaks whose period is too long for a display.
  // JPEG block copies of a stronger peak (a display's lattice beating with the 8 px blocks) are not.
  const all = [...low, ...strong];
  const coarse = all
    .filter((p) => p.ratio >= COARSE_GENERATOR_RATIO && n / Math.hypot(p.u, p.v) > MAX_DISPLAY_PERIOD_PX)
    .filter((g) => !all.some((p) => p.ratio > g.ratio && isBlockCopy(g, p, n)))
    .slice(0, MAX_PEAKS);
  if (coarse.length > 0 && explainedByCoarseLattice(first, coarse, n)) return { ...base, grid_ratio: 0, texture: "coarse" };
  // A display's strongest component is its lattice (or a moiré alias of it, finer still); a tile
  // whose strongest periodicity is coarser than any display's is a scene texture whatever else it holds
  // (a chessboard's or a tiled floor's fundamental with weaker harmonics that no lattice test explains).
  if (n / Math.hypot(first.u, first.v) > MAX_DISPLAY_PERIOD_PX) return { ...base, grid_ratio: 0, texture: "coarse" };

  // The grid's second direction: the strongest peak that neither the first peak's harmonic comb (a
  // 1-D pattern such as stripes, whose harmonics alias into other directions) nor a coarse lattice
  // explains.
  let oneDirectional = false;
  for (const [index, q] of strong.entries()) {
    if (index === 0) continue;
    // Sidebands (the scene modulating a periodic pattern smears its peak into neighbours) and JPEG
    // block copies belong to a stronger peak.
    if (strong.slice(0, index).some((p) => sameFrequency(q, p, n) || isBlockCopy(q, p, n) || isResampledMosaicCopy(q, p, n))) continue;
    if (onHarmonicComb(first, q, n)) {
      oneDirectional = true;
      continue;
    }
    if (coarse.length > 0 && explainedByCoarseLattice(q, coarse, n)) continue;
    const weakSecond = q.ratio < GRID_RATIO_THRESHOLD && first.ratio >= GRID_RATIO_THRESHOLD;
    const counts = q.ratio >= GRID_RATIO_THRESHOLD;
    return {
      ...base,
      grid_ratio: q.ratio,
      texture: weakSecond ? "one_directional" : null,
      symmetry: counts ? q.ratio / first.ratio : null,
      depth_variation: counts ? modulationDepthVariation(tile, residual, first) : null,
    };
  }
  // Periodic, but in one direction only.
  return { ...base, grid_ratio: 0, texture: oneDirectional || first.ratio >= GRID_RATIO_THRESHOLD ? "one_directional" : null };
}

/**
 * Demodulates the residual at the peak's frequency over DEPTH_WINDOWS² sub-windows: the lattice's
 * local amplitude over the local mean brightness is its modulation depth there. Returns the depth's
 * coefficient of variation across the sub-windows. e^{-2πi(ux+vy)/n} = e^{-2πiux/n}·e^{-2πivy/n}:
 * two tables of n phasors, two multiply-adds per pixel.
 */
export function modulationDepthVariation(tile: Tile, residual: Float64Array, p: { u: number; v: number }): number {
  const n = tile.width;
  const cu = new Float64Array(n);
  const su = new Float64Array(n);
  const cv = new Float64Array(n);
  const sv = new Float64Array(n);
  for (let i = 0; i < n; i += 1) {
    cu[i] = Math.cos((-2 * Math.PI * p.u * i) / n);
    su[i] = Math.sin((-2 * Math.PI * p.u * i) / n);
    cv[i] = Math.cos((-2 * Math.PI * p.v * i) / n);
    sv[i] = Math.sin((-2 * Math.PI * p.v * i) / n);
  }
  const b = n / DEPTH_WINDOWS;
  const depths: number[] = [];
  for (let by = 0; by < DEPTH_WINDOWS; by += 1) {
    for (let bx = 0; bx < DEPTH_WINDOWS; bx += 1) {
      let ar = 0;
      let ai = 0;
      let light = 0;
      for (let y = by * b; y < (by + 1) * b; y += 1) {
        let rr = 0;
        let ri = 0;
        for (let x = bx * b; x < (bx + 1) * b; x += 1) {
          const r = residual[y * n + x]!;
          rr += r * cu[x]!;
          ri += r * su[x]!;
          light += tile.data[y * tile.width + x]!;
        }
        ar += rr * cv[y]! - ri * sv[y]!;
        ai += rr * sv[y]! + ri * cv[y]!;
      }
      depths.push(Math.hypot(ar, ai) / Math.max(1, light / (b * b)) / (b * b));
    }
  }
  const mean = depths.reduce((a, d) => a + d, 0) / depths.length;
  const spread = Math.sqrt(depths.reduce((a, d) => a + (d - mean) ** 2, 0) / depths.length);
  return mean > 0 ? spread / mean : 0;
}

function sum(xs: number[]): number {
  return xs.reduce((a, x) => a + x, 0);
}

/**
 * The highest value v such that the items at or above v hold more than half of the total weight
 * (with equal weights: the lower median, as the detector used before tiles were weighted).
 */
export function weightedUpperHalfMin(items: Array<{ ratio: number; weight: number }>): number {
  const sorted = [...items].sort((a, b) => b.ratio - a.ratio);
  const half = sum(sorted.map((i) => i.weight)) / 2;
  let held = 0;
  for (const item of sorted) {
    held += item.weight;
    if (held > half) return item.ratio;
  }
  return sorted.at(-1)?.ratio ?? 0;
}

/** The mean absolute step between neighbouring SCENE_BLOCK² block means of a tile (grey levels). */
export function sceneGradient(tile: Tile): number {
  const m = tile.width / SCENE_BLOCK;
  const blocks = new Float64Array(m * m);
  for (let y = 0; y < m * SCENE_BLOCK; y += 1) {
    const row = y * tile.width;
    const brow = Math.floor(y / SCENE_BLOCK) * m;
    for (let x = 0; x < m * SCENE_BLOCK; x += 1) blocks[brow + Math.floor(x / SCENE_BLOCK)]! += tile.data[row + x]!;
  }
  let steps = 0;
  for (let by = 0; by < m; by += 1) {
    for (let bx = 0; bx < m; bx += 1) {
      const b = blocks[by * m + bx]!;
      if (bx + 1 < m) steps += Math.abs(blocks[by * m + bx + 1]! - b);
      if (by + 1 < m) steps += Math.abs(blocks[(by + 1) * m + bx]! - b);
    }
  }
  return steps / (SCENE_BLOCK * SCENE_BLOCK) / (2 * m * (m - 1));
}

/** Median, or null for none. */
const medianOrNull = (xs: number[]): number | null => (xs.length === 0 ? null : median(xs));

/**
 * JPEG's 8×8 blocks modulate the image at 8 px: every strong peak gets weaker copies shifted by
 * multiples of an eighth of the sampling frequency. Such a copy is an artefact, not a direction.
 */
function isBlockCopy(q: Peak, p: Peak, n: number): boolean {
  if (q.ratio > p.ratio * BLOCK_COPY_MAX_RATIO) return false;
  const step = n / 8;
  for (const sign of [1, -1]) {
    const du = q.u - sign * p.u;
    const dv = q.v - sign * p.v;
    if (Math.hypot(du - step * Math.round(du / step), dv - step * Math.round(dv / step)) <= 1.2) return true;
  }
  return false;
}

/**
 * A colour-filter copy of a much stronger peak after the photo was resampled: the Bayer mosaic
 * copies every peak at half the sensor's sampling frequency along either axis (`sameFrequency`), and
 * a resize since (a messenger's, a crop-and-scale) moves that shift to another amount, still along an
 * axis. A display's second direction lies along an axis from its first only for a display turned by
 * about 45°, and is then not that much weaker.
 */
function isResampledMosaicCopy(q: Peak, p: Peak, n: number): boolean {
  if (q.ratio > p.ratio * MOSAIC_COPY_MAX_RATIO) return false;
  const wrap = (d: number) => Math.abs(d - n * Math.round(d / n));
  for (const sign of [1, -1]) {
    const du = wrap(q.u - sign * p.u);
    const dv = wrap(q.v - sign * p.v);
    if (Math.min(du, dv) <= MOSAIC_COPY_TOLERANCE) return true;
  }
  return false;
}

/** Sub-bin peak position (parabolic interpolation along each axis). */
function refine(at: (u: number, v: number) => number, u: number, v: number, ratio: number): Peak {
  const offset = (a: number, b: number, c: number) => {
    const d = a - 2 * b + c;
    return d < 0 ? Math.max(-0.5, Math.min(0.5, (0.5 * (a - c)) / d)) : 0;
  };
  const m = at(u, v);
  return { u: u + offset(at(u - 1, v), m, at(u + 1, v)), v: v + offset(at(u, v - 1), m, at(u, v + 1)), ratio };
}

/** Distance between two frequencies modulo `period` bins, either sign (real spectrum). */
function aliasDistance(au: number, av: number, bu: number, bv: number, period: number): number {
  const wrap = (d: number) => d - period * Math.round(d / period);
  return Math.min(Math.hypot(wrap(au - bu), wrap(av - bv)), Math.hypot(wrap(au + bu), wrap(av + bv)));
}

/**
 * A sideband or a colour-filter copy of the same frequency: within a few bins modulo half the
 * sampling frequency (a 2×2 Bayer filter leaves, after demosaicing, copies of every peak shifted by
 * half the sampling frequency along either axis).
 */
function sameFrequency(a: Peak, b: Peak, n: number): boolean {
  return aliasDistance(a.u, a.v, b.u, b.v, n / 2) <= SIDEBAND_RADIUS;
}

/**
 * Whether q is a harmonic of the same 1-D periodic pattern as p: for some fundamental f with
 * p ≡ a·f and q ≡ b·f (mod the sampling lattice, either sign). f is one of the a-th roots of p.
 */
function onHarmonicComb(p: Peak, q: Peak, n: number): boolean {
  const period = n / 2;
  for (let a = 1; a <= MAX_ROOT; a += 1) {
    for (let mu = 0; mu < a; mu += 1) {
      for (let mv = 0; mv < a; mv += 1) {
        const fu = (p.u + mu * period) / a;
        const fv = (p.v + mv * period) / a;
        if (Math.hypot(fu - period * Math.round(fu / period), fv - period * Math.round(fv / period)) < LOW_MIN_RADIUS) continue;
        for (let b = 1; b <= MAX_HARMONIC; b += 1) {
          if (b === a) continue;
          if (aliasDistance(b * fu, b * fv, q.u, q.v, period) <= COMB_TOLERANCE * (1 + (0.25 * b) / a)) return true;
        }
      }
    }
  }
  return false;
}

/** Whether p is an integer combination (a harmonic) of one or two coarse generators. */
function explainedByCoarseLattice(p: Peak, generators: Peak[], n: number): boolean {
  for (let i = 0; i < generators.length; i += 1) {
    const g = generators[i]!;
    for (let j = i; j < generators.length; j += 1) {
      const h = generators[j]!;
      // One generator: any harmonic; two: low orders only (high ones would explain anything).
      const reach = i === j ? MAX_HARMONIC : MAX_LATTICE_ORDER;
      for (let a = -reach; a <= reach; a += 1) {
        for (let b = i === j ? 0 : -reach; b <= (i === j ? 0 : reach); b += 1) {
          if (Math.abs(a) + Math.abs(b) < 2) continue;
          const u = a * g.u + b * h.u;
          const v = a * g.v + b * h.v;
          if (aliasDistance(u, v, p.u, p.v, n / 2) <= COMB_TOLERANCE * (1 + 0.25 * (Math.abs(a) + Math.abs(b)))) return true;
        }
      }
    }
  }
  return false;
}
/**
 * The 2-D DFT of the real n×n image in `re` (n even), written to `re` and `im`. Real input halves
 * the work: two rows go through one complex FFT (z = a + ib; A[k] = (Z[k] + conj Z[n-k]) / 2,
 * B[k] = (Z[k] - conj Z[n-k]) / 2i), and only columns 0…n/2 are transformed, the others being
 * their mirror (F[v][n-u] = conj F[n-v][u]).
 */
export function fft2dReal(re: Float64Array, im: Float64Array, n: number, fft: FFT): void {
  const input = fft.createComplexArray() as number[];
  const output = fft.createComplexArray() as number[];
  for (let y = 0; y < n; y += 2) {
    const a = y * n;
    const b = a + n;
    for (let x = 0; x < n; x += 1) {
      input[2 * x] = re[a + x]!;
      input[2 * x + 1] = re[b + x]!;
    }
    fft.transform(output, input);
    for (let k = 0; k < n; k += 1) {
      const m = k === 0 ? 0 : n - k;
      const zr = output[2 * k]!;
      const zi = output[2 * k + 1]!;
      const cr = output[2 * m]!;
      const ci = output[2 * m + 1]!;
      re[a + k] = (zr + cr) / 2;
      im[a + k] = (zi - ci) / 2;
      re[b + k] = (zi + ci) / 2;
      im[b + k] = (cr - zr) / 2;
    }
  }
  const half = n / 2;
  for (let x = 0; x <= half; x += 1) {
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
  for (let v = 0; v < n; v += 1) {
    const mirror = (v === 0 ? 0 : n - v) * n;
    for (let u = half + 1; u < n; u += 1) {
      re[v * n + u] = re[mirror + n - u]!;
      im[v * n + u] = -im[mirror + n - u]!;
    }
  }
}

function isLocalMax(at: (u: number, v: number) => number, u: number, v: number, mag: number): boolean {
  for (let dv = -1; dv <= 1; dv += 1) {
    for (let du = -1; du <= 1; du += 1) {
      if ((du !== 0 || dv !== 0) && at(u + du, v + dv) > mag) return false;
    }
  }
  return true;
}

function nearMultiple(value: number, step: number): boolean {
  const r = ((value % step) + step) % step;
  return r <= 1 || r >= step - 1;
}
