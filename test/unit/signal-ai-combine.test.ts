import { describe, expect, it } from "vitest";
import type { AiResult } from "../../src/analysis/evidence";
import { AI_PROVIDER_VERSION, combineAiDetection, DISPUTED_CONFIDENCE, offlineAi, PROVIDER_AI_THRESHOLD, provenanceDecides } from "../../src/analysis/signals/ai-combine";
import { FAIL_CONFIDENCE } from "../../src/analysis/verdict";

/*
 * The combination of provenance, the shipped pixel detector and a configured provider, on constructed
 * results: the pixel detector is written elsewhere (`detectAiPixels(image): AiResult`, method
 * `pixels`, provider `offline-pixels`, label `likely_ai` or `unknown`, evidence `pixel_score`).
 */

const provenance = (label: AiResult["label"], confidence: number, code: string): AiResult => ({
  label,
  confidence,
  method: "provenance",
  provider: "offline-provenance",
  method_version: "ai-provenance/1",
  evidence: [{ code }],
});
const noMarker = provenance("unknown", 0.4, "no_generator_marker");
const generatorMarker = provenance("likely_ai", 0.9, "sd_parameters_chunk");
const trustedCapture = provenance("likely_human", 0.9, "c2pa_trusted_capture");
const pixels = (label: "likely_ai" | "unknown", score: number): AiResult => ({
  label,
  confidence: score,
  method: "pixels",
  provider: "offline-pixels",
  method_version: "ai-pixels/1",
  evidence: [{ code: "pixel_score", value: score }],
});
const answered = (score: number) => ({ name: "sightengine", outcome: { score, evidence: [{ code: "ai_provider_request", detail: "req_1" }] } });
const failed = (error: string) => ({ name: "sightengine", outcome: { error } });
const codes = (result: { evidence: Array<{ code: string }> }) => result.evidence.map((e) => e.code);

describe("ai_detection: which method decides", () => {
  it("a provenance marker decides whatever the pixels or the provider say, and the others' evidence stays beside it", () => {
    expect(provenanceDecides(generatorMarker)).toBe(true);
    expect(provenanceDecides(trustedCapture)).toBe(true);
    expect(provenanceDecides(noMarker)).toBe(false);
    const marked = combineAiDetection({ provenance: generatorMarker, pixels: pixels("unknown", 0.1), provider: answered(0.02) });
    expect(marked).toMatchObject({ label: "likely_ai", confidence: 0.9, method: "provenance", provider: "offline-provenance" });
    expect(codes(marked as AiResult)).toEqual(["sd_parameters_chunk", "pixel_score"]);
    // A trusted camera manifest binds the pixels: a pixel trip does not overturn it.
    expect(combineAiDetection({ provenance: trustedCapture, pixels: pixels("likely_ai", 0.8), provider: null })).toMatchObject({ label: "likely_human", method: "provenance" });
  });

  it("without a provider the pixel detector decides when it ran; without it, provenance", () => {
    const caught = combineAiDetection({ provenance: noMarker, pixels: pixels("likely_ai", 0.83), provider: null });
    expect(caught).toMatchObject({ label: "likely_ai", confidence: 0.83, method: "pixels", provider: "offline-pixels" });
    expect(codes(caught as AiResult)).toEqual(["pixel_score", "no_generator_marker"]);
    expect(combineAiDetection({ provenance: noMarker, pixels: pixels("unknown", 0.2), provider: null })).toMatchObject({ label: "unknown", method: "pixels" });
    expect(combineAiDetection({ provenance: noMarker, pixels: null, provider: null })).toEqual(noMarker);
    // What the case analysis reads for every capture is the same offline rule.
    expect(offlineAi(noMarker, pixels("likely_ai", 0.83))).toEqual(caught);
  });

  it("a provider that answers decides: likely_ai at or above its threshold with its score as confidence", () => {
    const ai = combineAiDetection({ provenance: noMarker, pixels: pixels("unknown", 0.2), provider: answered(0.97) });
    expect(ai).toEqual({
      label: "likely_ai",
      confidence: 0.97,
      method: "provider:sightengine",
      provider: "sightengine",
      method_version: AI_PROVIDER_VERSION,
      evidence: [{ code: "ai_provider_score", value: 0.97, detail: "sightengine" }, { code: "ai_provider_request", detail: "req_1" }, { code: "pixel_score", value: 0.2 }, { code: "no_generator_marker" }],
    });
    expect(combineAiDetection({ provenance: noMarker, pixels: null, provider: answered(PROVIDER_AI_THRESHOLD) })).toMatchObject({ label: "likely_ai", confidence: PROVIDER_AI_THRESHOLD });
    // Agreeing with a pixel trip: the provider decides.
    expect(combineAiDetection({ provenance: noMarker, pixels: pixels("likely_ai", 0.7), provider: answered(0.9) })).toMatchObject({ label: "likely_ai", confidence: 0.9, method: "provider:sightengine" });
  });

  it("a clean provider score reads unknown with the offline methods' confidence: an uncalibrated score is no support for authenticity", () => {
    const clean = combineAiDetection({ provenance: noMarker, pixels: pixels("unknown", 0.2), provider: answered(0.02) });
    expect(clean).toMatchObject({ label: "unknown", confidence: 0.2, method: "provider:sightengine" });
    expect(combineAiDetection({ provenance: noMarker, pixels: null, provider: answered(0.49) })).toMatchObject({ label: "unknown", confidence: 0.4, method: "provider:sightengine" });
  });

  it("a pixel trip the provider disagrees with stands, but only as suspicious", () => {
    const disputed = combineAiDetection({ provenance: noMarker, pixels: pixels("likely_ai", 0.9), provider: answered(0.1) }) as AiResult;
    expect(disputed).toMatchObject({ label: "likely_ai", method: "pixels", confidence: DISPUTED_CONFIDENCE });
    expect(DISPUTED_CONFIDENCE).toBeLessThan(FAIL_CONFIDENCE);
    expect(codes(disputed)).toEqual(["pixel_score", "ai_detectors_disagree", "ai_provider_score", "ai_provider_request", "no_generator_marker"]);
    // A weaker trip keeps its own confidence.
    expect(combineAiDetection({ provenance: noMarker, pixels: pixels("likely_ai", 0.52), provider: answered(0.1) })).toMatchObject({ confidence: 0.52 });
  });

  it("a provider that fails leaves a pixel trip standing, noted; with no trip the signal is not assessed, never clean", () => {
    const stands = combineAiDetection({ provenance: noMarker, pixels: pixels("likely_ai", 0.83), provider: failed("timeout") }) as AiResult;
    expect(stands).toMatchObject({ label: "likely_ai", confidence: 0.83, method: "pixels" });
    expect(stands.evidence).toContainEqual({ code: "ai_provider_error", detail: "sightengine: timeout" });
    expect(combineAiDetection({ provenance: noMarker, pixels: pixels("unknown", 0.2), provider: failed("HTTP 429: usage_limit") })).toEqual({
      status: "not_assessed",
      reason: "ai_provider_error",
      provider: "sightengine",
      method_version: AI_PROVIDER_VERSION,
      evidence: [{ code: "ai_provider_error", detail: "sightengine: HTTP 429: usage_limit" }, { code: "pixel_score", value: 0.2 }, { code: "no_generator_marker" }],
    });
    expect(combineAiDetection({ provenance: noMarker, pixels: null, provider: failed("malformed answer") })).toMatchObject({ status: "not_assessed", reason: "ai_provider_error" });
    // A marker needs no provider: its failure changes nothing.
    expect(combineAiDetection({ provenance: generatorMarker, pixels: null, provider: failed("timeout") })).toMatchObject({ label: "likely_ai", method: "provenance" });
  });

  it("a score outside 0..1 is clamped, never trusted past its range", () => {
    expect(combineAiDetection({ provenance: noMarker, pixels: null, provider: answered(7) })).toMatchObject({ label: "likely_ai", confidence: 1 });
    expect(combineAiDetection({ provenance: noMarker, pixels: null, provider: answered(Number.NaN) })).toMatchObject({ label: "unknown" });
  });
});
