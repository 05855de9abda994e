import FFT from "fft.js";
import { describe, expect, it } from "vitest";
import { fft2dReal } from "../../src/analysis/signals/screen-moire";

/** The 2-D DFT by its definition, O(n⁴): what the screen detector's transform must equal. */
function dft2d(image: Float64Array, n: number): { re: Float64Array; im: Float64Array } {
  const re = new Float64Array(n * n);
  const im = new Float64Array(n * n);
  for (let v = 0; v < n; v += 1) {
    for (let u = 0; u < n; u += 1) {
      let sr = 0;
      let si = 0;
      for (let y = 0; y < n; y += 1) {
        for (let x = 0; x < n; x += 1) {
          const angle = (-2 * Math.PI * (u * x + v * y)) / n;
          sr += image[y * n + x]! * Math.cos(angle);
          si += image[y * n + x]! * Math.sin(angle);
        }
      }
      re[v * n + u] = sr;
      im[v * n + u] = si;
    }
  }
  return { re, im };
}

describe("fft2dReal (the screen detector's transform of a real tile)", () => {
  it("equals the DFT's definition, every bin, mirrored half included", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff) * 255;
    for (const n of [4, 8, 16]) {
      const image = Float64Array.from({ length: n * n }, random);
      const re = Float64Array.from(image);
      const im = new Float64Array(n * n).fill(123); // stale values from a previous tile: all overwritten
      fft2dReal(re, im, n, new FFT(n));
      const expected = dft2d(image, n);
      for (let i = 0; i < n * n; i += 1) {
        expect(Math.abs(re[i]! - expected.re[i]!), `n=${n} re[${i}]`).toBeLessThan(1e-8);
        expect(Math.abs(im[i]! - expected.im[i]!), `n=${n} im[${i}]`).toBeLessThan(1e-8);
      }
    }
  });
});
