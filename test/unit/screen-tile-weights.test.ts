import { describe, expect, it } from "vitest";
import { decodeImage, type Rect, type Tile } from "../../src/analysis/decoders";
import { BUSY_SCENE_GRADIENT, detectScreen, measureMoire, sceneGradient, weightedUpperHalfMin } from "../../src/analysis/signals/screen-moire";
import { displayRecapture } from "../helpers/recapture";
import { encodeJpeg, naturalScene, rng, type Rgb } from "../helpers/synth";

/*
 * screen-moire/5: every tile's vote weighs 1 / (1 + g / BUSY_SCENE_GRADIENT), g the tile's scene
 * gradient, so a lattice seen on the calm parts of a recapture is not outvoted by busy regions where
 * no lattice can stand out.
 */

const codes = (r: { evidence: Array<{ code: string }> }) => r.evidence.map((e) => e.code);

function tileOf(n: number, value: (x: number, y: number) => number): Tile {
  const data = new Uint8Array(n * n);
  for (let y = 0; y < n; y += 1) for (let x = 0; x < n; x += 1) data[y * n + x] = value(x, y);
  return { x: 0, y: 0, width: n, height: n, data };
}

/** A smooth colour ramp: calm content for a display to show. */
function ramp(width: number, height: number): Rgb {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = (y * width + x) * 3;
      data[i] = 90 + (80 * x) / width;
      data[i + 1] = 120 + (60 * y) / height;
      data[i + 2] = 150 - (50 * x) / width;
    }
  }
  return { width, height, data };
}

/** Thousands of small discs of random colours: busy, but with no periodicity (no axis-aligned edges). */
function clutter(width: number, height: number, seed: number): Rgb {
  const r = rng(seed);
  const data = new Uint8Array(width * height * 3).fill(128);
  for (let k = 0; k < 2500; k += 1) {
    const cx = r() * width;
    const cy = r() * height;
    const rad = 2 + r() * 14;
    const c = [r() * 255, r() * 255, r() * 255];
    for (let y = Math.max(0, Math.floor(cy - rad)); y < Math.min(height, cy + rad); y += 1) {
      for (let x = Math.max(0, Math.floor(cx - rad)); x < Math.min(width, cx + rad); x += 1) {
        if ((x - cx) ** 2 + (y - cy) ** 2 <= rad * rad) for (let q = 0; q < 3; q += 1) data[(y * width + x) * 3 + q] = c[q]!;
      }
    }
  }
  return { width, height, data };
}

const squares = (width: number, height: number): Rect[] => {
  const rects: Rect[] = [];
  for (let y = 0; y + 256 <= height; y += 256) for (let x = 0; x + 256 <= width; x += 256) rects.push({ x, y, width: 256, height: 256 });
  return rects;
};
const tilesOf = async (image: Rgb) => (await decodeImage(encodeJpeg(image, 90), "image/jpeg", { tiles: squares }))!.tiles;

describe("screen_detection: tiles weighted by how calm their scene is (screen-moire/5)", () => {
  it("with equal weights the strength is the lower median, as before the weights", () => {
    const equal = (ratios: number[]) => weightedUpperHalfMin(ratios.map((ratio) => ({ ratio, weight: 1 })));
    expect(equal([1, 9, 3, 7, 5, 2, 8, 4, 6])).toBe(5);
    expect(equal([40, 30, 0, 25])).toBe(25);
    expect(equal([7])).toBe(7);
    // Heavy low ratios pull it down, heavy high ratios up.
    expect(weightedUpperHalfMin([{ ratio: 30, weight: 1 }, { ratio: 30, weight: 1 }, { ratio: 0, weight: 3 }])).toBe(0);
    expect(weightedUpperHalfMin([{ ratio: 30, weight: 2 }, { ratio: 0, weight: 0.5 }, { ratio: 0, weight: 0.5 }, { ratio: 0, weight: 0.5 }])).toBe(30);
  });

  it("the scene gradient is the mean step between 8×8 block means", () => {
    expect(sceneGradient(tileOf(64, () => 120))).toBe(0);
    // 8×8 blocks alternating 100 / 140: every neighbouring block differs by 40.
    expect(sceneGradient(tileOf(64, (x, y) => ((Math.floor(x / 8) + Math.floor(y / 8)) % 2 ? 140 : 100)))).toBeCloseTo(40, 6);
    // A pattern finer than the blocks averages out.
    expect(sceneGradient(tileOf(64, (x) => (x % 2 ? 140 : 100)))).toBe(0);
  });

  it("a lattice on the calm tiles is detected though busy tiles without one are the majority", async () => {
    const shot = await tilesOf(displayRecapture(ramp(512, 512), { pitch: 3, angleDeg: 12, layout: "rgb-stripe", width: 512, height: 512, blurSigma: 0.8, noise: 2, rescale: 1, keystone: 0, seed: 3 }));
    const busy = (await tilesOf(clutter(768, 512, 4))).slice(0, 5);
    const calm = (await tilesOf(naturalScene(768, 512, 7))).slice(0, 5);
    expect(shot.length).toBe(4);

    const withBusy = measureMoire([...shot, ...busy])!;
    expect(withBusy.tiles_over).toBe(4);
    for (const t of withBusy.tiles.slice(4)) {
      expect(t.scene_gradient).toBeGreaterThan(3 * BUSY_SCENE_GRADIENT);
      expect(t.grid_ratio).toBe(0);
    }
    expect(withBusy.weight_over).toBeGreaterThan(0.5);
    const detected = detectScreen({ width: 1024, height: 768, tiles: [...shot, ...busy] }, null);
    expect(detected.screen_detected).toBe(true);
    expect(detected.evidence.find((e) => e.code === "moire_grid_peaks")?.detail).toMatch(/^4\/9 tiles \(\d+ % of the weight\)/);

    // The same four lattice tiles beside five calm tiles without a lattice: four of nine, not enough.
    const withCalm = measureMoire([...shot, ...calm])!;
    expect(withCalm.tiles_over).toBe(4);
    expect(withCalm.weight_over).toBeLessThan(0.5);
    const cleared = detectScreen({ width: 1024, height: 768, tiles: [...shot, ...calm] }, null);
    expect(cleared.screen_detected).toBe(false);
    expect(codes(cleared)).toContain("no_grid_peaks");
  });
});
