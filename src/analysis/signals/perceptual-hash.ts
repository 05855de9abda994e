import type { Luma } from "../decoders";

/**
 * Near-duplicate fingerprint of an image: two 64-bit perceptual hashes that must both agree (a
 * vote), computed on the reduced-scale overview.
 * - pHash: the luma area-averaged to 32×32, its 2-D DCT, one bit per coefficient of the 8×8
 *   lowest frequencies (above or below their median). It indexes the image (image_hashes).
 * - dHash: the luma area-averaged to 9×8, one bit per horizontal gradient. It confirms a pHash match.
 * Both survive resizing, recompression, small crops and brightness changes; neither survives
 * mirroring, rotation or large crops (docs/signals.md).
 */
export const FINGERPRINT_ALGORITHM = "phash64+dhash64/2";

/**
 * pHash radius (bits of 64). Two hashes within it share at least one of their four 16-bit bands
 * within 1 bit (were every band 2 bits apart, they would differ in 8), which keeps the D1 band
 * lookup exact inside the radius. Measured on real photographs: docs/signals.md.
 */
export const PHASH_MAX_DISTANCE = 7;
/** dHash radius for the confirming vote. */
export const DHASH_MAX_DISTANCE = 16;
/** Bits per band within which the band lookup must search: ⌊PHASH_MAX_DISTANCE / 4⌋. */
export const BAND_RADIUS = Math.floor(PHASH_MAX_DISTANCE / 4);

/**
 * Below this much texture (grey levels of RMS left on the 32×32 overview once a smooth quadratic
 * surface, i.e. lighting gradients and lens vignetting, is taken away) an image carries too little
 * signal to hash: two different blank walls would hash alike. Such images are never matched.
 */
export const MIN_TEXTURE = 3;

/** Hashes of one region of the image. */
export interface RegionHash {
  /** `full`, or the window it covers: an x and a y range of RANGES (e.g. `ca`). */
  region: string;
  /** pHash, 16 hex digits. */
  hash: string;
  /** dHash, 16 hex digits. */
  aux: string;
}

export interface Fingerprint extends RegionHash {
  algorithm: string;
  /**
   * Crop tolerance: hashes of windows of the frame (RANGES). A copy cropped by up to 10 % per side
   * is close to one of the original's windows.
   */
  windows: RegionHash[];
  /** RMS texture (grey levels) after removing a smooth quadratic surface. */
  texture: number;
  /** False for low-texture images: they are neither indexed nor matched. */
  matchable: boolean;
}

/**
 * The crops a copy may have taken, per axis: [from, to] fractions of the side. Every combination
 * of an x and a y range but the full frame is a window (48): any crop of up to 10 % of each side,
 * taken from either end or both, lies within about 2 % of one of them.
 */
const RANGES: Array<[string, number, number]> = [
  ["0", 0, 1],
  ["a", 0, 0.9],
  ["b", 0.1, 1],
  ["c", 0.05, 0.95],
  ["d", 0, 0.95],
  ["e", 0.05, 1],
  ["f", 0.025, 0.975],
];

export function imageFingerprint(luma: Luma): Fingerprint {
  const table = summedArea(luma);
  const full = { x0: 0, y0: 0, x1: 1, y1: 1 };
  const grid = areaAverage(table, 32, 32, full);
  const texture = Math.round(residualRms(grid, 32, 32) * 100) / 100;
  const windows: RegionHash[] = [];
  for (const [xn, x0, x1] of RANGES) {
    for (const [yn, y0, y1] of RANGES) {
      if (xn === "0" && yn === "0") continue;
      windows.push(regionHash(table, `${xn}${yn}`, { x0, y0, x1, y1 }));
    }
  }
  return { algorithm: FINGERPRINT_ALGORITHM, region: "full", hash: phash64(grid), aux: dhash64(table, full), windows, texture, matchable: texture >= MIN_TEXTURE };
}

function regionHash(table: SummedArea, region: string, window: Window): RegionHash {
  return { region, hash: phash64(areaAverage(table, 32, 32, window)), aux: dhash64(table, window) };
}

/** Whether two region hashes agree: the pHash within its radius and the dHash vote. */
export function regionsMatch(a: Pick<RegionHash, "hash" | "aux">, b: Pick<RegionHash, "hash" | "aux">): boolean {
  return hammingDistance(a.hash, b.hash) <= PHASH_MAX_DISTANCE && hammingDistance(a.aux, b.aux) <= DHASH_MAX_DISTANCE;
}

/**
 * The region pairs compared between two images: the whole of one against the whole or any window
 * of the other (a crop of A is close to a window of A, never to a window of the crop).
 */
export function comparedPairs(a: Fingerprint, b: Fingerprint): Array<[RegionHash, RegionHash]> {
  return [[a, b], ...b.windows.map((w): [RegionHash, RegionHash] => [a, w]), ...a.windows.map((w): [RegionHash, RegionHash] => [w, b])];
}

/** Whether two fingerprints are the same picture: same algorithm, both matchable, one region pair agrees. */
export function sameImage(a: Fingerprint, b: Fingerprint): boolean {
  return a.algorithm === b.algorithm && a.matchable && b.matchable && comparedPairs(a, b).some(([x, y]) => regionsMatch(x, y));
}

/** DCT pHash of a 32×32 grid (8×8 lowest frequencies, median threshold). */
function phash64(grid: Float64Array): string {
  const n = 32;
  const k = 8;
  // Separable DCT-II, only the first k frequencies of each axis are needed.
  const basis = new Float64Array(k * n);
  for (let u = 0; u < k; u += 1) for (let x = 0; x < n; x += 1) basis[u * n + x] = Math.cos(((2 * x + 1) * u * Math.PI) / (2 * n));
  const rows = new Float64Array(n * k);
  for (let y = 0; y < n; y += 1) {
    for (let u = 0; u < k; u += 1) {
      let s = 0;
      for (let x = 0; x < n; x += 1) s += grid[y * n + x]! * basis[u * n + x]!;
      rows[y * k + u] = s;
    }
  }
  const coefficients = new Float64Array(k * k);
  for (let v = 0; v < k; v += 1) {
    for (let u = 0; u < k; u += 1) {
      let s = 0;
      for (let y = 0; y < n; y += 1) s += rows[y * k + u]! * basis[v * n + y]!;
      coefficients[v * k + u] = s;
    }
  }
  // The median of the AC coefficients; the DC term (overall brightness) is left out of it.
  const ac = [...coefficients.subarray(1)].sort((a, b) => a - b);
  const median = (ac[31]! + ac[32]!) / 2;
  let hex = "";
  for (let byte = 0; byte < 8; byte += 1) {
    let value = 0;
    for (let bit = 0; bit < 8; bit += 1) value = (value << 1) | (coefficients[byte * 8 + bit]! > median ? 1 : 0);
    hex += value.toString(16).padStart(2, "0");
  }
  return hex;
}

/** 64-bit difference hash: 9×8 area-averaged luma, one bit per horizontal gradient. */
function dhash64(table: SummedArea, window: Window): string {
  const cells = areaAverage(table, 9, 8, window);
  let hex = "";
  for (let y = 0; y < 8; y += 1) {
    let byte = 0;
    for (let x = 0; x < 8; x += 1) byte = (byte << 1) | (cells[y * 9 + x]! > cells[y * 9 + x + 1]! ? 1 : 0);
    hex += byte.toString(16).padStart(2, "0");
  }
  return hex;
}

/** A region of the frame in fractions of its width and height. */
interface Window {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Summed-area table of the luma: any rectangle's sum in four look-ups. */
interface SummedArea {
  width: number;
  height: number;
  /** (width + 1) × (height + 1), row 0 and column 0 zero. */
  sums: Float64Array;
}

function summedArea(luma: Luma): SummedArea {
  const { width, height, data } = luma;
  const stride = width + 1;
  const sums = new Float64Array(stride * (height + 1));
  for (let y = 0; y < height; y += 1) {
    let row = 0;
    for (let x = 0; x < width; x += 1) {
      row += data[y * width + x]!;
      sums[(y + 1) * stride + x + 1] = sums[y * stride + x + 1]! + row;
    }
  }
  return { width, height, sums };
}

/** The luma of a window, area-averaged onto a cols × rows grid (cell edges on whole pixels). */
function areaAverage(table: SummedArea, cols: number, rows: number, window: Window): Float64Array {
  const { width, height, sums } = table;
  const stride = width + 1;
  const left = Math.round(window.x0 * width);
  const top = Math.round(window.y0 * height);
  const w = Math.max(1, Math.round(window.x1 * width) - left);
  const h = Math.max(1, Math.round(window.y1 * height) - top);
  const out = new Float64Array(cols * rows);
  for (let j = 0; j < rows; j += 1) {
    const y0 = top + Math.floor((j * h) / rows);
    const y1 = Math.max(y0 + 1, top + Math.floor(((j + 1) * h) / rows));
    for (let i = 0; i < cols; i += 1) {
      const x0 = left + Math.floor((i * w) / cols);
      const x1 = Math.max(x0 + 1, left + Math.floor(((i + 1) * w) / cols));
      const sum = sums[y1 * stride + x1]! - sums[y0 * stride + x1]! - sums[y1 * stride + x0]! + sums[y0 * stride + x0]!;
      out[j * cols + i] = sum / ((x1 - x0) * (y1 - y0));
    }
  }
  return out;
}

/** RMS residual of the least-squares fit z = a + bx + cy + dx² + exy + fy² over the grid. */
function residualRms(grid: Float64Array, cols: number, rows: number): number {
  const terms = (x: number, y: number) => [1, x, y, x * x, x * y, y * y];
  const ata = Array.from({ length: 6 }, () => new Float64Array(6));
  const atb = new Float64Array(6);
  for (let j = 0; j < rows; j += 1) {
    for (let i = 0; i < cols; i += 1) {
      const t = terms((i + 0.5) / cols - 0.5, (j + 0.5) / rows - 0.5);
      const z = grid[j * cols + i]!;
      for (let r = 0; r < 6; r += 1) {
        atb[r] = atb[r]! + t[r]! * z;
        for (let c = 0; c < 6; c += 1) ata[r]![c] = ata[r]![c]! + t[r]! * t[c]!;
      }
    }
  }
  const coef = solve(ata, atb);
  let sum = 0;
  for (let j = 0; j < rows; j += 1) {
    for (let i = 0; i < cols; i += 1) {
      const t = terms((i + 0.5) / cols - 0.5, (j + 0.5) / rows - 0.5);
      const fit = t.reduce((s, v, r) => s + v * coef[r]!, 0);
      sum += (grid[j * cols + i]! - fit) ** 2;
    }
  }
  return Math.sqrt(sum / (cols * rows));
}

/** Gaussian elimination with partial pivoting (the 6×6 normal equations are well conditioned). */
function solve(a: Float64Array[], b: Float64Array): Float64Array {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let col = 0; col < n; col += 1) {
    let pivot = col;
    for (let r = col + 1; r < n; r += 1) if (Math.abs(m[r]![col]!) > Math.abs(m[pivot]![col]!)) pivot = r;
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    for (let r = col + 1; r < n; r += 1) {
      const f = m[r]![col]! / m[col]![col]!;
      for (let c = col; c <= n; c += 1) m[r]![c] = m[r]![c]! - f * m[col]![c]!;
    }
  }
  const x = new Float64Array(n);
  for (let r = n - 1; r >= 0; r -= 1) {
    let s = m[r]![n]!;
    for (let c = r + 1; c < n; c += 1) s -= m[r]![c]! * x[c]!;
    x[r] = s / m[r]![r]!;
  }
  return x;
}

/** The four 16-bit bands of a 64-bit hex hash (multi-index hashing keys). */
export function bands(hash: string): [number, number, number, number] {
  return [0, 1, 2, 3].map((i) => parseInt(hash.slice(i * 4, i * 4 + 4), 16)) as [number, number, number, number];
}

/** Every 16-bit value within Hamming distance `radius` (≤ 2) of `band`, itself first. */
export function bandNeighbours(band: number, radius = BAND_RADIUS): number[] {
  const out = [band];
  if (radius >= 1) for (let i = 0; i < 16; i += 1) out.push(band ^ (1 << i));
  if (radius >= 2) for (let i = 0; i < 16; i += 1) for (let j = i + 1; j < 16; j += 1) out.push(band ^ (1 << i) ^ (1 << j));
  return out;
}

export function hammingDistance(a: string, b: string): number {
  let d = 0;
  for (let i = 0; i < 16; i += 4) {
    let x = parseInt(a.slice(i, i + 4), 16) ^ parseInt(b.slice(i, i + 4), 16);
    while (x) {
      x &= x - 1;
      d += 1;
    }
  }
  return d;
}
