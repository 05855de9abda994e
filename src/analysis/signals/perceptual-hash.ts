import type { Luma } from "../pixels";

export const DHASH_ALGORITHM = "dhash64/1";

/**
 * Near-duplicate radius (bits of 64). Any two hashes this close share one 16-bit band within one bit
 * (pigeonhole over four bands), which is what makes the D1 band lookup exact inside the radius.
 */
export const NEAR_DUPLICATE_MAX_DISTANCE = 7;

/**
 * 64-bit difference hash: the luma is area-averaged onto a 9×8 grid and each bit says whether a cell
 * is brighter than its right neighbour. It survives resizing, recompression and mild colour or
 * brightness changes; it does not survive mirroring, rotation or large crops (docs/signals.md).
 * Returned as 16 hex digits.
 */
export function dhash64(luma: Luma): string {
  const cols = 9;
  const rows = 8;
  const sums = new Float64Array(cols * rows);
  const counts = new Uint32Array(cols * rows);
  const { width, height, data } = luma;
  for (let y = 0; y < height; y += 1) {
    const cy = Math.min(rows - 1, Math.floor((y * rows) / height));
    for (let x = 0; x < width; x += 1) {
      const cx = Math.min(cols - 1, Math.floor((x * cols) / width));
      sums[cy * cols + cx] = sums[cy * cols + cx]! + data[y * width + x]!;
      counts[cy * cols + cx]! += 1;
    }
  }
  const cell = (x: number, y: number) => sums[y * cols + x]! / Math.max(1, counts[y * cols + x]!);
  let hex = "";
  for (let y = 0; y < rows; y += 1) {
    let byte = 0;
    for (let x = 0; x < 8; x += 1) byte = (byte << 1) | (cell(x, y) > cell(x + 1, y) ? 1 : 0);
    hex += byte.toString(16).padStart(2, "0");
  }
  return hex;
}

/** The four 16-bit bands of a 64-bit hex hash (multi-index hashing keys). */
export function bands(hash: string): [number, number, number, number] {
  return [0, 1, 2, 3].map((i) => parseInt(hash.slice(i * 4, i * 4 + 4), 16)) as [number, number, number, number];
}

/** Every 16-bit value within Hamming distance 1 of `band` (itself first): 17 values. */
export function bandNeighbours(band: number): number[] {
  const out = [band];
  for (let bit = 0; bit < 16; bit += 1) out.push(band ^ (1 << bit));
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
