/*
 * Normalised cross-correlation of two grey images of one size, `b` read at an offset from `a`: the
 * photo against the burst's frames (agreement.ts), a frame against the next (frame-chain.ts).
 * Independent of a change of gain and offset (exposure).
 */

/** Pixels of `a` compared: x in [x0, x1), y in [y0, y1); `b` is read at (x + dx, y + dy), which must lie inside it. */
export interface Region {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The correlation of `a` over `region` with `b` moved by (dx, dy); -1 when either is flat there. */
export function correlationAt(a: Uint8Array, b: Uint8Array, width: number, dx: number, dy: number, region: Region): number {
  let n = 0;
  let sa = 0;
  let sb = 0;
  let saa = 0;
  let sbb = 0;
  let sab = 0;
  for (let y = region.y0; y < region.y1; y += 1) {
    const ra = y * width;
    const rb = (y + dy) * width + dx;
    for (let x = region.x0; x < region.x1; x += 1) {
      const va = a[ra + x]!;
      const vb = b[rb + x]!;
      sa += va;
      sb += vb;
      saa += va * va;
      sbb += vb * vb;
      sab += va * vb;
      n += 1;
    }
  }
  if (n === 0) return -1;
  const cov = sab / n - (sa / n) * (sb / n);
  const varA = saa / n - (sa / n) ** 2;
  const varB = sbb / n - (sb / n) ** 2;
  return varA > 0 && varB > 0 ? cov / Math.sqrt(varA * varB) : -1;
}

/** The part of a `width` × `height` image whose pixels, moved by (dx, dy), stay inside it. */
export function overlap(width: number, height: number, dx: number, dy: number): Region {
  return { x0: Math.max(0, -dx), y0: Math.max(0, -dy), x1: Math.min(width, width - dx), y1: Math.min(height, height - dy) };
}
