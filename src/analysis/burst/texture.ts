/*
 * Texture as the burst's agreement checks compare it (patch-agreement.ts, measures.ts): 4 × 4 block
 * means less their best-fitting plane, correlated. The blocks average a sensor's noise and a JPEG's
 * rounding away; the plane takes out a smooth gradient (a sky, a lit wall) that any patch of such a
 * scene shares.
 */

const BLOCK = 4;
/** Block texture varying less than this (grey levels) shows nothing to compare: a plain wall, the sky. */
export const MIN_TEXTURE = 3;

/**
 * Block means of the `width` × `height` window of a `side`-wide patch at (x, y), less their
 * best-fitting plane: a smooth gradient (a sky, a lit wall) is in every patch of such a scene, so
 * only what varies beyond it is compared.
 */
export function blockTexture(patch: Uint8Array, side: number, x: number, y: number, width: number, height = width): Float64Array {
  const nx = Math.floor(width / BLOCK);
  const ny = Math.floor(height / BLOCK);
  const out = new Float64Array(nx * ny);
  for (let by = 0; by < ny; by += 1) {
    for (let bx = 0; bx < nx; bx += 1) {
      let s = 0;
      for (let dy = 0; dy < BLOCK; dy += 1) {
        const row = (y + by * BLOCK + dy) * side + x + bx * BLOCK;
        for (let dx = 0; dx < BLOCK; dx += 1) s += patch[row + dx]!;
      }
      out[by * nx + bx] = s / (BLOCK * BLOCK);
    }
  }
  // On a regular grid the mean and the two slopes are independent least-squares fits.
  const [cx, cy] = [(nx - 1) / 2, (ny - 1) / 2];
  let mean = 0;
  let gx = 0;
  let gy = 0;
  let sx = 0;
  let sy = 0;
  for (let i = 0; i < out.length; i += 1) {
    const [u, v] = [(i % nx) - cx, Math.floor(i / nx) - cy];
    mean += out[i]!;
    gx += u * out[i]!;
    gy += v * out[i]!;
    sx += u * u;
    sy += v * v;
  }
  mean /= out.length;
  for (let i = 0; i < out.length; i += 1) out[i] = out[i]! - mean - ((i % nx) - cx) * (sx > 0 ? gx / sx : 0) - (Math.floor(i / nx) - cy) * (sy > 0 ? gy / sy : 0);
  return out;
}

/** Standard deviation (of block texture, or of a picture's pixels). */
export function spread(v: ArrayLike<number> & Iterable<number>): number {
  let s = 0;
  let q = 0;
  for (const x of v) {
    s += x;
    q += x * x;
  }
  const m = s / v.length;
  return Math.sqrt(Math.max(0, q / v.length - m * m));
}

/** Normalised cross-correlation (−1 … 1; −1 when either side is constant). */
export function correlation(a: Float64Array, b: Float64Array): number {
  let sa = 0;
  let sb = 0;
  let saa = 0;
  let sbb = 0;
  let sab = 0;
  const n = a.length;
  for (let i = 0; i < n; i += 1) {
    sa += a[i]!;
    sb += b[i]!;
    saa += a[i]! * a[i]!;
    sbb += b[i]! * b[i]!;
    sab += a[i]! * b[i]!;
  }
  const cov = sab / n - (sa / n) * (sb / n);
  const va = saa / n - (sa / n) ** 2;
  const vb = sbb / n - (sb / n) ** 2;
  return va > 0 && vb > 0 ? cov / Math.sqrt(va * vb) : -1;
}

