import { describe, expect, it } from "vitest";
import { signalResult } from "../../client/console/lib/signals";

/*
 * The console claims depth only where a capture's evidence measured it (client/console/lib/signals.ts).
 * The verdict's combined depth value is `{ source, confidence }`: it used to read "moving with depth"
 * for every passed burst, flat scenes included.
 */
describe("the console's words for a passed capture burst", () => {
  const words = (value: Record<string, unknown>) => signalResult("depth", { source: "capture_burst", confidence: 0.6, ...value }).text;

  it("the verdict's combined value (no method, no evidence) says nothing of depth", () => {
    expect(words({})).toBe("Frames as a live camera gives them (confidence the scene is real: 60 %)");
  });

  it("a photo's result words what its evidence measured", () => {
    expect(words({ method: "capture_burst_flat_scene", evidence: [{ code: "planar_motion", value: 0.2 }] })).toBe("Frames as a live camera gives them, of a flat scene (one moving plane) (confidence the scene is real: 60 %)");
    expect(words({ method: "capture_burst_no_parallax", evidence: [{ code: "parallax_not_measured" }] })).toBe("Frames as a live camera gives them; too little motion to judge depth (confidence the scene is real: 60 %)");
    expect(words({ evidence: [{ code: "parallax", value: 0.9 }] })).toBe("Frames as a live camera gives them, moving with depth (confidence the scene is real: 60 %)");
    // Stored before capture-burst/5: no method where the parallax went unmeasured.
    expect(words({ method_version: "capture-burst/4", evidence: [{ code: "parallax_not_measured" }] })).toBe("Frames as a live camera gives them (confidence the scene is real: 60 %)");
  });

  it("an anomaly is never worded as a live camera", () => {
    expect(signalResult("depth", { source: "capture_burst", confidence: 0.05, anomaly: true }).tone).toBe("bad");
    // Its confidence is in a real scene: a bare "confidence 5 %" read as "5 % sure it is fake" (probe of 2026-12-07).
    expect(signalResult("depth", { source: "capture_burst", confidence: 0.05 }).text).toBe("Frames no live camera over a real scene gives (confidence the scene is real: 5 %)");
  });
});
