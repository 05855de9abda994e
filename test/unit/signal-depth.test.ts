import { describe, expect, it } from "vitest";
import { analyzeDepthPng } from "../../src/analysis/signals/depth-plane";
import { encodeDepthPng, encodePngRgb, naturalScene, rng } from "../helpers/synth";

const codes = (r: { evidence: Array<{ code: string }> }) => r.evidence.map((e) => e.code);

describe("depth (plane fit of the forensic buffer)", () => {
  it("a tilted plane with 1% noise (a screen held at an angle) is a depth anomaly", () => {
    const noise = rng(3);
    const png = encodeDepthPng(160, 120, (x, y) => 400 + x * 1.5 + y * 0.8 + (noise() - 0.5) * 2 * 4);
    const result = analyzeDepthPng(png);
    expect(result.source).toBe("forensic_buffer");
    expect(result.anomaly).toBe(true);
    expect(result.confidence).toBeLessThan(0.25);
    expect(codes(result)).toContain("depth_planar");
  });

  it("a table with an object on it is a three-dimensional scene", () => {
    const png = encodeDepthPng(160, 120, (x, y) => {
      const d = Math.hypot(x - 80, y - 60);
      return 900 + y * 2 - (d < 35 ? (35 - d) * 9 : 0);
    });
    const result = analyzeDepthPng(png);
    expect(result.anomaly).toBe(false);
    expect(result.confidence).toBeGreaterThan(0.7);
    expect(codes(result)).toContain("depth_non_planar");
  });

  it("a map that is mostly unknown (zeros) says nothing", () => {
    const png = encodeDepthPng(64, 48, (x) => (x < 8 ? 500 : 0));
    const result = analyzeDepthPng(png);
    expect(result.source).toBe("unavailable");
    expect(result.anomaly).toBe(false);
    expect(codes(result)).toContain("depth_insufficient_valid_pixels");
  });

  it("an 8-bit RGB PNG is not a depth map", () => {
    expect(() => analyzeDepthPng(encodePngRgb(naturalScene(16, 16)))).toThrow(/16-bit grayscale/);
  });
});
