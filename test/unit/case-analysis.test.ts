import { describe, expect, it } from "vitest";
import { analyzeImage, type ImageInput } from "../../src/analysis/analyze-image";
import { analyzeCase, type CaseCapture } from "../../src/analysis/case-analysis";
import { receivedOf, syntheticCapture } from "../helpers/bursts";
import { encodeJpeg, encodePngRgb, exifTiff, naturalScene, recapture, type ExifFields } from "../helpers/synth";

const deps = { searchHistory: async () => ({ matches: [], shared: false }), vision: null, web: null, trustedSigners: [] };

async function capture(seq: number, bytes: Uint8Array, extra: Partial<ImageInput> = {}): Promise<CaseCapture> {
  const input: ImageInput = {
    captureId: `cap_${seq}`,
    tenantId: "tnt_a",
    bytes,
    mediaType: "image/jpeg",
    uploaded: false,
    depthPng: null,
    channel: "api",
    captureIntegrity: null,
    location: null,
    clientCapturedAt: null,
    required: ["screen", "ai"],
    ...extra,
  };
  return { capture_id: input.captureId, seq, created_at: seq * 1000, analysis: await analyzeImage(input, deps) };
}

const jpegWith = (seed: number, exif: ExifFields) => encodeJpeg(naturalScene(160, 120, seed), 90, exifTiff(exif));
const pixel = { make: "Google", model: "Pixel 8" };

describe("case analysis (deterministic dimensions)", () => {
  it("a consistent case is low risk", async () => {
    const captures = [
      await capture(1, jpegWith(1, { ...pixel, dateTimeOriginal: "2026:05:01 10:00:00" }), { location: { lat: 48.85, lng: 2.29, accuracy_m: 5 } }),
      await capture(2, jpegWith(2, { ...pixel, dateTimeOriginal: "2026:05:01 10:01:30" }), { location: { lat: 48.8502, lng: 2.2901, accuracy_m: 5 } }),
    ];
    const result = analyzeCase({ captures, narrative: null, narrativeModel: null, webSearched: false });
    expect(result.dimensions.cross_image_consistency.score).toBe(0);
    expect(result.dimensions.physical_plausibility.score).toBe(0);
    expect(result.overall_risk_score).toBe(0);
    expect(result.review_priority).toBe("low");
    expect(result.dimensions.narrative_image_match).toBeUndefined();
    expect(result.uncertainty_areas).toEqual(expect.arrayContaining([expect.stringMatching(/No vision provider configured/)]));
    expect(result).toMatchObject({ model: "deterministic-case-rules/2", rubric_version: 2, consistency_level: 1 });
    expect(result.analysis).toEqual([
      { capture_id: "cap_1", ai: "low", screen: false },
      { capture_id: "cap_2", ai: "low", screen: false },
    ]);
    // Nothing decided ai_detection for either (no marker, no provider): low must not read as cleared.
    expect(result.uncertainty_areas).toContainEqual(expect.stringMatching(/^2 captures of 2 could not be checked for generated content .*not because they were cleared\.$/));
  });

  it("one capture of several without an EXIF time is said in the singular", async () => {
    const captures = [
      await capture(1, jpegWith(1, { ...pixel, dateTimeOriginal: "2026:05:01 10:00:00" })),
      await capture(2, jpegWith(2, { ...pixel, dateTimeOriginal: "2026:05:01 10:01:30" })),
      await capture(3, jpegWith(3, pixel)),
    ];
    const result = analyzeCase({ captures, narrative: null, narrativeModel: null, webSearched: false });
    expect(result.uncertainty_areas).toContain("1 capture of 3 carries no EXIF capture time: their order could not be checked.");
  });

  it("times against the claimed order, mixed devices, a duplicate and GPS spread raise cross-image risk", async () => {
    const scene = naturalScene(160, 120, 9);
    const captures = [
      await capture(1, encodeJpeg(scene, 90, exifTiff({ ...pixel, dateTimeOriginal: "2026:05:01 12:00:00" })), { location: { lat: 48.85, lng: 2.29 } }),
      await capture(2, encodeJpeg(scene, 75, exifTiff({ make: "Apple", model: "iPhone 15", dateTimeOriginal: "2026:05:01 09:00:00" })), { location: { lat: 48.95, lng: 2.29 } }),
    ];
    const result = analyzeCase({ captures, narrative: null, narrativeModel: null, webSearched: false });
    const cross = result.dimensions.cross_image_consistency;
    expect(cross.concerns).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/against the submission order/),
        expect.stringMatching(/2 different devices/),
        expect.stringMatching(/near-duplicates/),
        expect.stringMatching(/km apart/),
      ]),
    );
    expect(cross.score).toBeGreaterThan(0.9);
    expect(result.consistency_level).toBeLessThan(0.1);
    expect(result.review_priority).toBe("high");
  });

  it("the overall score is a cross-dimensional aggregate, not an average", async () => {
    const grid = encodeJpeg(recapture(naturalScene(320, 256, 4), 4, 3), 90, exifTiff({ ...pixel, dateTimeOriginal: "2026:05:01 10:00:00" }));
    const generated = encodePngRgb(naturalScene(96, 64, 5), { parameters: "x\nSteps: 20, Sampler: Euler" });
    const captures = [
      await capture(1, grid),
      await capture(2, generated, { mediaType: "image/png" }),
      await capture(3, jpegWith(6, { make: "Apple", model: "iPhone 15", dateTimeOriginal: "2026:05:03 10:00:00" })),
    ];
    const result = analyzeCase({ captures, narrative: null, narrativeModel: null, webSearched: false });
    const { cross_image_consistency: cross, physical_plausibility: phys } = result.dimensions;
    expect(phys.concerns).toEqual(expect.arrayContaining([expect.stringMatching(/photo of a screen/), expect.stringMatching(/generator provenance/)]));
    expect(result.overall_risk_score).toBeGreaterThan(Math.max(cross.score, phys.score));
    expect(result.overall_risk_score).toBeGreaterThan((cross.score + phys.score) / 2);
    expect(result.analysis).toEqual([
      { capture_id: "cap_1", ai: "low", screen: true },
      { capture_id: "cap_2", ai: "high", screen: false },
      { capture_id: "cap_3", ai: "low", screen: false },
    ]);
    // The generated capture was decided by its provenance; only the other two were not checked.
    expect(result.uncertainty_areas).toContainEqual(expect.stringMatching(/^2 captures of 3 could not be checked for generated content/));
  });

  it("narrative judgements from a vision provider add their dimension and name the model", async () => {
    const captures = [await capture(1, jpegWith(7, { ...pixel, dateTimeOriginal: "2026:05:01 10:00:00" }))];
    const result = analyzeCase({
      captures,
      narrative: [{ capture_id: "cap_1", status: "mismatch", confidence: 0.8, reasons: ["the car in the photo is undamaged"] }],
      narrativeModel: "workers-ai:@cf/meta/llama-3.2-11b-vision-instruct",
      webSearched: true,
    });
    expect(result.dimensions.narrative_image_match).toMatchObject({ score: 0.8, concerns: ["Capture cap_1: the car in the photo is undamaged"] });
    expect(result.model).toBe("deterministic-case-rules/2 + workers-ai:@cf/meta/llama-3.2-11b-vision-instruct");
    expect(result.review_priority).toBe("high");
  });

  it("depth is what the verdict read: the frames the capture page sent count, and uploads are not missing depth", async () => {
    const hosted = { channel: "hosted_page" as const, required: ["screen", "ai", "depth"] as const };
    const still = await syntheticCapture("still", 11);
    const live = await syntheticCapture("scene3d", 12);
    const frozen = await capture(1, still.photo, { ...hosted, required: [...hosted.required], ...receivedOf(still) });
    const genuine = await capture(2, live.photo, { ...hosted, required: [...hosted.required], ...receivedOf(live) });
    const receipt = await capture(3, jpegWith(13, pixel), { ...hosted, required: [...hosted.required], uploaded: true });
    const result = analyzeCase({ captures: [frozen, genuine, receipt], narrative: null, narrativeModel: null, webSearched: false });
    const physical = result.dimensions.physical_plausibility;
    expect(physical.score).toBe(0.5);
    expect(physical.concerns).toEqual([expect.stringMatching(/^Capture cap_1 came from frames no live camera over a real scene gives \(.+\)\.$/)]);
    expect(physical.evidence).toContain("1 depth anomaly in 2 live capture(s) with depth evidence, over 3 capture(s)");
    expect(result.uncertainty_areas.join(" ")).not.toMatch(/depth/);
    expect(result.review_priority).toBe("medium");

    // A live capture without the record is missing depth; the upload still is not.
    const bare = await capture(4, jpegWith(14, pixel), { ...hosted, required: [...hosted.required] });
    const partial = analyzeCase({ captures: [genuine, bare, receipt], narrative: null, narrativeModel: null, webSearched: false });
    expect(partial.dimensions.physical_plausibility.score).toBe(0);
    expect(partial.uncertainty_areas).toContain("1 live capture of 2 has no depth evidence (a depth map, or the frames the capture page sent).");
  });
});
