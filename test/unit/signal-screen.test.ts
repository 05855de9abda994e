import { describe, expect, it } from "vitest";
import { decodeImage } from "../../src/analysis/pixels";
import { detectScreen, screenTileRects } from "../../src/analysis/signals/screen-moire";
import { encodeJpeg, naturalScene, recapture, stripes, type Rgb } from "../helpers/synth";

async function screenOf(image: Rgb, quality = 90, depth: { anomaly: boolean; confidence: number } | null = null) {
  const pixels = await decodeImage(encodeJpeg(image, quality), "image/jpeg", { tiles: screenTileRects });
  return detectScreen(pixels, depth);
}

const codes = (r: { evidence: Array<{ code: string }> }) => r.evidence.map((e) => e.code);
const scene = naturalScene(384, 320, 5);

describe("screen_detection (moiré of the high-pass residual)", () => {
  it("a natural scene is not a screen, with confidence at most 0.5", async () => {
    const result = await screenOf(scene);
    expect(result.screen_detected).toBe(false);
    expect(result.confidence).toBeLessThanOrEqual(0.5);
    expect(codes(result)).toContain("no_grid_peaks");
  });

  it.each([
    [3, 0],
    [4, 3],
    [5, 10],
  ])("a recapture through a pixel grid of pitch %i px at %i° is detected, confidence capped at 0.7", async (pitch, angle) => {
    const result = await screenOf(recapture(scene, pitch, angle), 88);
    expect(result.screen_detected).toBe(true);
    expect(result.confidence).toBeGreaterThanOrEqual(0.45);
    expect(result.confidence).toBeLessThanOrEqual(0.7);
    expect(codes(result)).toContain("moire_grid_peaks");
  });

  it("stripes (periodic in one direction only) do not trigger", async () => {
    const result = await screenOf(stripes(scene, 6));
    expect(result.screen_detected).toBe(false);
    expect(codes(result)).toContain("one_directional_periodicity");
  });

  it("a planar depth map corroborates the grid and raises the confidence above the moiré cap", async () => {
    const result = await screenOf(recapture(scene, 5, 3), 90, { anomaly: true, confidence: 0 });
    expect(result.screen_detected).toBe(true);
    expect(result.confidence).toBeGreaterThan(0.7);
    expect(codes(result)).toContain("depth_planar_corroborates");
  });

  it("undecodable pixels say so instead of guessing", () => {
    const result = detectScreen(null, null);
    expect(result).toMatchObject({ screen_detected: false, confidence: 0 });
    expect(codes(result)).toEqual(["pixels_unavailable"]);
  });
});
