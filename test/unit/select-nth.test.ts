import { describe, expect, it } from "vitest";
import { selectNth } from "../../src/lib/select-nth";

function seeded(seed: number) {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
}

describe("selectNth", () => {
  it("finds the k-th smallest value as a full sort would, duplicates and every position included", () => {
    const random = seeded(7);
    for (const length of [1, 2, 3, 10, 101, 1000]) {
      for (const levels of [2, 17, 1e9]) {
        const values = Float64Array.from({ length }, () => Math.floor(random() * levels) / 7);
        const sorted = Float64Array.from(values).sort();
        for (const k of new Set([0, 1, Math.floor(length / 2), length - 2, length - 1].filter((k) => k >= 0 && k < length))) {
          expect(selectNth(Float64Array.from(values), k), `length ${length}, ${levels} levels, k ${k}`).toBe(sorted[k]);
        }
      }
    }
  });

  it("handles sorted, reversed and constant input", () => {
    const ascending = Float64Array.from({ length: 257 }, (_, i) => i);
    expect(selectNth(Float64Array.from(ascending), 128)).toBe(128);
    expect(selectNth(Float64Array.from(ascending).reverse(), 3)).toBe(3);
    expect(selectNth(new Float64Array(64).fill(2.5), 31)).toBe(2.5);
  });
});
