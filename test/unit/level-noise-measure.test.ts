import { describe, expect, it } from "vitest";
import { noiseByLevel, type LevelBin } from "../../scripts/eval/level-noise/measure";
import { rng } from "../helpers/synth";

// The signal-dependent noise measure (scripts/eval/level-noise/, not shipped: docs/signals.md,
// "Signal-dependent noise tried") must see shot noise where there is some, or its negative result on
// the footage would say nothing.
const SIDE = 64;
const SCENE = 96;

function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** Six patches of a ramp (levels 62–188 across the patch) moving 0.7 px a frame, each with fresh noise of σ `sigmaAt(level)`. */
function rampPatches(sigmaAt: (level: number) => number, seed: number): Uint8Array[] {
  const random = rng(seed);
  return Array.from({ length: 6 }, (_, k) => {
    const patch = new Uint8Array(SIDE * SIDE);
    for (let y = 0; y < SIDE; y += 1) {
      for (let x = 0; x < SIDE; x += 1) {
        const sx = x + 16 + 0.7 * k;
        const level = 30 + (190 * sx) / SCENE + 3 * Math.sin((y + 16) / 5);
        patch[y * SIDE + x] = Math.max(0, Math.min(255, Math.round(level + sigmaAt(level) * gaussian(random))));
      }
    }
    return patch;
  });
}

/** Pooled σ of the bright half of the bins over the dark half's. */
function brightOverDark(bins: LevelBin[]): number {
  const sorted = [...bins].sort((a, b) => a.level - b.level);
  const half = sorted.length >> 1;
  const pool = (bs: LevelBin[]) => Math.sqrt(bs.reduce((s, b) => s + b.n * b.sigma ** 2, 0) / bs.reduce((s, b) => s + b.n, 0));
  return pool(sorted.slice(half)) / pool(sorted.slice(0, half));
}

describe("noise by level (scripts/eval/level-noise/measure.ts)", () => {
  it("reads shot noise growing with the level, bin by bin", () => {
    const shot = (level: number) => Math.sqrt(0.02 * level);
    const bins = noiseByLevel(rampPatches(shot, 1), SIDE, { subpixel: true, smoothFlat: true }).filter((b) => b.n >= 500);
    expect(bins.length).toBeGreaterThanOrEqual(4);
    for (const b of bins) expect(Math.abs(b.sigma / shot(b.level) - 1)).toBeLessThan(0.1);
    expect(brightOverDark(bins)).toBeGreaterThan(1.1);
  });

  it("reads noise of one σ at every level as the same in bright and dark bins", () => {
    for (const seed of [1, 2, 3]) expect(Math.abs(brightOverDark(noiseByLevel(rampPatches(() => 1.5, seed), SIDE, { subpixel: true, smoothFlat: true })) - 1)).toBeLessThan(0.06);
  });
});
