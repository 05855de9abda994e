import { describe, expect, it } from "vitest";
import { NOT_APPLICABLE, notAssessed, type AiMethod, type Evidence, type VerdictSignals } from "../../src/analysis/evidence";
import { aggregateCondition, aggregateObjectMatch, conditionLabel } from "../../src/analysis/independent-checks";
import { aggregateVerdict, unreadableEvidence, type CaptureSignals } from "../../src/analysis/verdict";
import { presentVerdict } from "../../src/model/verification/present";

const meta = { provider: "test", method_version: "t/1", evidence: [] };
const screen = (detected: boolean, confidence: number) => ({ ...meta, screen_detected: detected, confidence });
const ai = (label: "likely_ai" | "likely_human" | "unknown", confidence: number, method: AiMethod = "provenance", evidence: Evidence[] = []) => ({
  ...meta,
  label,
  confidence,
  method,
  evidence,
});
const reverse = (distance: number | null) => ({
  ...meta,
  found_online: false,
  match_count: distance === null ? 0 : 1,
  sources: ["service_history"] as Array<"service_history" | "shared_history" | "web">,
  matches: distance === null ? [] : [{ capture_id: "cap_other", verification_id: "vfy_other", distance }],
});
const depth = (confidence: number, anomaly: boolean) => ({ ...meta, source: "forensic_buffer", confidence, anomaly });
const context = (status: "match" | "mismatch" | "inconclusive", confidence: number) => ({ ...meta, status, confidence });

function capture(signals: VerdictSignals, uploaded = false, id = "cap_1"): CaptureSignals {
  return { capture_id: id, uploaded, signals };
}

describe("verdict aggregation", () => {
  it("clean signals verify, with the mean support as score and only the required signals", () => {
    const v = aggregateVerdict(["screen", "ai"], [capture({ screen_detection: screen(false, 0.5), ai_detection: ai("unknown", 0.3), depth: depth(0.9, false) })]);
    expect(v).toEqual({
      label: "verified",
      score: 0.4,
      signals: { screen_detection: { screen_detected: false, confidence: 0.5 }, ai_detection: { label: "unknown", confidence: 0.3, method: "provenance", evidence: [] } },
      assessment: "complete",
      not_assessed: [],
    });
    expect(v.reason_code).toBeUndefined();
  });

  it("when several signals trip the reason follows the priority screen > ai > context > reverse > depth", () => {
    const all = {
      screen_detection: screen(true, 0.55),
      ai_detection: ai("likely_ai", 0.9),
      context_match: context("mismatch", 0.8),
      reverse_search: reverse(0),
      depth: depth(0, true),
    };
    const required = ["screen", "ai", "reverse", "context", "depth"] as const;
    expect(aggregateVerdict(required, [capture(all)]).reason_code).toBe("screen_detected");
    expect(aggregateVerdict(required, [capture({ ...all, screen_detection: screen(false, 0.2) })]).reason_code).toBe("ai_generated");
    expect(aggregateVerdict(required, [capture({ ...all, screen_detection: screen(false, 0.2), ai_detection: ai("unknown", 0.2) })]).reason_code).toBe("context_mismatch");
    expect(
      aggregateVerdict(required, [capture({ ...all, screen_detection: screen(false, 0.2), ai_detection: ai("unknown", 0.2), context_match: context("match", 0.9) })]).reason_code,
    ).toBe("reverse_search_match");
    const onlyDepth = aggregateVerdict(required, [
      capture({ ...all, screen_detection: screen(false, 0.2), ai_detection: ai("unknown", 0.2), context_match: context("match", 0.9), reverse_search: reverse(null) }),
    ]);
    expect(onlyDepth.reason_code).toBe("depth_anomaly");
    // Depth alone (client-supplied) only makes it suspicious.
    expect(onlyDepth.label).toBe("suspicious");
  });

  it("the strongest tripped confidence decides failed (≥ 0.6) or suspicious", () => {
    expect(aggregateVerdict(["ai"], [capture({ ai_detection: ai("likely_ai", 0.9) })])).toMatchObject({ label: "failed", score: 0.9, reason_code: "ai_generated" });
    expect(aggregateVerdict(["screen"], [capture({ screen_detection: screen(true, 0.5) })])).toMatchObject({ label: "suspicious", score: 0.5 });
    expect(aggregateVerdict(["reverse"], [capture({ reverse_search: reverse(6) })])).toMatchObject({ label: "suspicious", reason_code: "reverse_search_match" });
  });

  it("reverse search: a copy in the service's history is suspicious (a reason to look), a web match fails; sources are what every capture searched", () => {
    expect(aggregateVerdict(["reverse"], [capture({ reverse_search: reverse(0) })])).toEqual({
      label: "suspicious",
      score: 0.55,
      signals: { reverse_search: { found_online: false, match_count: 1, sources: ["service_history"] } },
      reason_code: "reverse_search_match",
      assessment: "complete",
      not_assessed: [],
    });
    const online = { ...reverse(null), found_online: true, match_count: 3, sources: ["service_history", "web"] as Array<"service_history" | "web"> };
    expect(aggregateVerdict(["reverse"], [capture({ reverse_search: online })])).toMatchObject({ label: "failed", score: 0.8, signals: { reverse_search: { found_online: true, match_count: 3, sources: ["service_history", "web"] } } });
    // Clean over the history alone verifies; the web adds support.
    expect(aggregateVerdict(["reverse"], [capture({ reverse_search: reverse(null) })])).toMatchObject({ label: "verified", score: 0.5, assessment: "complete" });
    const shared = { ...reverse(null), sources: ["service_history", "shared_history"] as Array<"service_history" | "shared_history"> };
    const mixed = aggregateVerdict(["reverse"], [capture({ reverse_search: shared }, false, "a"), capture({ reverse_search: reverse(null) }, false, "b")]);
    expect(mixed.signals.reverse_search).toEqual({ found_online: false, match_count: 0, sources: ["service_history"] });
  });

  it("one tripped capture among several is enough; reverse matches count distinct captures", () => {
    const v = aggregateVerdict(["screen", "reverse"], [
      capture({ screen_detection: screen(false, 0.4), reverse_search: reverse(0) }, false, "cap_a"),
      capture({ screen_detection: screen(true, 0.65), reverse_search: reverse(0) }, false, "cap_b"),
    ]);
    expect(v.label).toBe("failed");
    expect(v.signals.screen_detection).toEqual({ screen_detected: true, confidence: 0.65 });
    expect(v.signals.reverse_search).toEqual({ found_online: false, match_count: 1, sources: ["service_history"] });
  });

  it("reverse matches: a capture that counted more copies than it lists makes its count the floor; web hits add on top", () => {
    const listed = Array.from({ length: 25 }, (_, i) => ({ capture_id: `cap_${i}`, verification_id: `vfy_${i}`, distance: 1 }));
    const many = { ...reverse(0), match_count: 2000 + 2, history_count: 2000, matches: listed };
    const v = aggregateVerdict(["reverse"], [capture({ reverse_search: many }, false, "cap_a"), capture({ reverse_search: reverse(0) }, false, "cap_b")]);
    expect(v.signals.reverse_search).toEqual({ found_online: false, match_count: 2002, sources: ["service_history"] });
    // Results stored before `history_count`: their list is every match.
    const v2 = aggregateVerdict(["reverse"], [capture({ reverse_search: { ...reverse(0), match_count: 3 } }, false, "cap_a")]);
    expect(v2.signals.reverse_search).toMatchObject({ match_count: 3 });
  });

  it("uploaded content is not applicable and never fails anything", () => {
    const uploaded = capture(
      { screen_detection: NOT_APPLICABLE, ai_detection: NOT_APPLICABLE, reverse_search: NOT_APPLICABLE, depth: NOT_APPLICABLE, context_match: NOT_APPLICABLE },
      true,
    );
    const v = aggregateVerdict(["screen", "ai", "reverse"], [uploaded]);
    expect(v).toEqual({
      label: "verified",
      score: 0,
      signals: {
        screen_detection: { status: "not_applicable", reason: "uploaded_content" },
        ai_detection: { status: "not_applicable", reason: "uploaded_content" },
        reverse_search: { status: "not_applicable", reason: "uploaded_content" },
      },
      // Nothing was evaluated: the label is the spec's, the assessment says how little it rests on.
      assessment: "none",
      not_assessed: [],
    });
    // A live capture next to an upload is judged on its own.
    const mixed = aggregateVerdict(["ai"], [uploaded, capture({ ai_detection: ai("likely_ai", 0.9) }, false, "cap_live")]);
    expect(mixed.reason_code).toBe("ai_generated");
  });

  it("the combined ai_detection says which method decided it: that of the capture it comes from, with its codes and values but no free text", () => {
    const byPixels = ai("likely_ai", 0.83, "pixels", [{ code: "pixel_score", value: 0.83 }, { code: "no_generator_marker", value: 0, detail: "camera metadata completeness" }]);
    const byProvider = ai("likely_ai", 0.97, "provider:sightengine", [{ code: "ai_provider_score", value: 0.97, detail: "sightengine" }]);
    const clean = ai("unknown", 0.4, "pixels", [{ code: "pixel_score", value: 0.1 }]);
    // The strongest likely_ai carries the combined value.
    const tripped = aggregateVerdict(["ai"], [capture({ ai_detection: byPixels }, false, "a"), capture({ ai_detection: byProvider }, false, "b"), capture({ ai_detection: clean }, false, "c")]);
    expect(tripped.signals.ai_detection).toEqual({ label: "likely_ai", confidence: 0.97, method: "provider:sightengine", evidence: [{ code: "ai_provider_score", value: 0.97 }] });
    expect(aggregateVerdict(["ai"], [capture({ ai_detection: clean }, false, "c"), capture({ ai_detection: byPixels }, false, "a")]).signals.ai_detection).toEqual({
      label: "likely_ai",
      confidence: 0.83,
      method: "pixels",
      evidence: [{ code: "pixel_score", value: 0.83 }, { code: "no_generator_marker", value: 0 }],
    });
    // Nothing tripped: the least confident capture's reading, and its method.
    const untripped = aggregateVerdict(["ai"], [capture({ ai_detection: ai("unknown", 0.7, "provider:sightengine") }, false, "a"), capture({ ai_detection: clean }, false, "c")]);
    expect(untripped.signals.ai_detection).toMatchObject({ label: "unknown", confidence: 0.4, method: "pixels" });
    // A result stored before `method` existed was decided from provenance metadata.
    const { method: _method, ...stored } = ai("likely_ai", 0.9);
    expect(aggregateVerdict(["ai"], [capture({ ai_detection: { ...stored, provider: "offline-provenance" } as never })]).signals.ai_detection).toMatchObject({ method: "provenance" });
  });

  it("absence of AI evidence never becomes likely_human unless every capture says so", () => {
    const v = aggregateVerdict(["ai"], [capture({ ai_detection: ai("likely_human", 0.9) }, false, "a"), capture({ ai_detection: ai("unknown", 0.2) }, false, "b")]);
    expect(v.signals.ai_detection).toEqual({ label: "unknown", confidence: 0.2, method: "provenance", evidence: [] });
  });
});

describe("fail closed: signals that could not be assessed", () => {
  it("a required signal not assessed keeps the label from verified: suspicious, reason not_assessed, listed", () => {
    const v = aggregateVerdict(["screen", "ai", "reverse"], [
      capture({ screen_detection: notAssessed("undecodable_image"), ai_detection: ai("unknown", 0.3), reverse_search: notAssessed("undecodable_image") }),
    ]);
    expect(v).toEqual({
      label: "suspicious",
      score: 0,
      signals: {
        screen_detection: { status: "not_assessed", reason: "undecodable_image" },
        ai_detection: { label: "unknown", confidence: 0.3, method: "provenance", evidence: [] },
        reverse_search: { status: "not_assessed", reason: "undecodable_image" },
      },
      reason_code: "not_assessed",
      assessment: "partial",
      not_assessed: ["screen_detection", "reverse_search"],
    });
  });

  it("one capture not assessed among clean ones is enough to be partial; the others' values are not shown as clean", () => {
    const v = aggregateVerdict(["screen"], [
      capture({ screen_detection: screen(false, 0.5) }, false, "a"),
      capture({ screen_detection: notAssessed("image_too_large") }, false, "b"),
    ]);
    expect(v).toMatchObject({ label: "suspicious", reason_code: "not_assessed", assessment: "partial", not_assessed: ["screen_detection"] });
    expect(v.signals.screen_detection).toEqual({ status: "not_assessed", reason: "image_too_large" });
  });

  it("a trip on another capture stands, and outranks not_assessed", () => {
    const v = aggregateVerdict(["screen", "reverse"], [
      capture({ screen_detection: screen(true, 0.65), reverse_search: notAssessed("web_search_not_configured") }, false, "a"),
      capture({ screen_detection: notAssessed("undecodable_image"), reverse_search: notAssessed("web_search_not_configured") }, false, "b"),
    ]);
    expect(v).toMatchObject({ label: "failed", reason_code: "screen_detected", assessment: "partial", not_assessed: ["screen_detection", "reverse_search"] });
    expect(v.signals.screen_detection).toEqual({ screen_detected: true, confidence: 0.65 });
    // A weak trip with an unassessed signal stays suspicious for the trip's reason.
    const weak = aggregateVerdict(["screen", "reverse"], [capture({ screen_detection: screen(true, 0.5), reverse_search: notAssessed("web_search_error") })]);
    expect(weak).toMatchObject({ label: "suspicious", reason_code: "screen_detected", score: 0.5, not_assessed: ["reverse_search"] });
  });

  it("the verified score counts only signals that ran: a web-searched clean reverse search supports 0.8", () => {
    const web = { ...reverse(null), sources: ["service_history", "web"] as Array<"service_history" | "web">, evidence: [{ code: "web_search_clean" }] };
    expect(aggregateVerdict(["screen", "reverse"], [capture({ screen_detection: screen(false, 0.4), reverse_search: web })])).toMatchObject({ label: "verified", score: 0.6 });
    // Not-required signals that were not assessed do not matter.
    expect(aggregateVerdict(["screen"], [capture({ screen_detection: screen(false, 0.4), depth: notAssessed("no_depth_map") })])).toMatchObject({ label: "verified", score: 0.4, assessment: "complete" });
  });

  it("uploaded content stays not applicable even when its pixels could not be decoded", () => {
    const v = aggregateVerdict(["screen"], [capture({ screen_detection: NOT_APPLICABLE }, true)]);
    expect(v).toMatchObject({ label: "verified", assessment: "none", not_assessed: [] });
  });

  it("assessment none: nothing required, or nothing that was required could be assessed", () => {
    expect(aggregateVerdict([], [capture({ screen_detection: screen(false, 0.5) })])).toEqual({ label: "verified", score: 0, signals: {}, assessment: "none", not_assessed: [] });
    const undecodable = notAssessed("undecodable_image");
    const v = aggregateVerdict(["screen", "ai"], [capture({ screen_detection: undecodable, ai_detection: undecodable })]);
    expect(v).toMatchObject({ label: "suspicious", reason_code: "not_assessed", assessment: "none", not_assessed: ["screen_detection", "ai_detection"] });
  });

  it("verdicts stored before the assessment fields (or before `none`) are served with them derived", () => {
    expect(presentVerdict({ label: "verified", score: 0.9, signals: {} })).toEqual({ label: "verified", score: 0.9, signals: {}, assessment: "none", not_assessed: [] });
    const clean = { label: "verified", score: 0.5, signals: { screen_detection: { screen_detected: false, confidence: 0.5 } } };
    expect(presentVerdict(clean)).toEqual({ ...clean, assessment: "complete", not_assessed: [] });
    const audit = { label: "verified", score: 0, signals: { screen_detection: NOT_APPLICABLE }, assessment: "complete", not_assessed: [] };
    expect(presentVerdict(audit)).toEqual({ ...audit, assessment: "none" });
    const stored = aggregateVerdict(["screen"], [capture({ screen_detection: notAssessed("image_too_small") })]);
    expect(presentVerdict(stored)).toEqual(stored);
    // Written by migration 0017: the assessment stored, `not_assessed` derived.
    const backfilled = { label: "suspicious", score: 0, signals: { screen_detection: notAssessed("image_too_small") }, assessment: "none" };
    expect(presentVerdict(backfilled)).toEqual({ ...backfilled, not_assessed: ["screen_detection"] });
  });

  it("an ai_detection stored before `method` existed reads as decided from provenance; a stored method is kept", () => {
    const old = { label: "suspicious", score: 0.5, signals: { ai_detection: { label: "likely_ai", confidence: 0.5 } }, reason_code: "ai_generated", assessment: "partial", not_assessed: ["x"] };
    expect(presentVerdict(old)).toEqual({ ...old, signals: { ai_detection: { label: "likely_ai", confidence: 0.5, method: "provenance" } } });
    const unassessed = { label: "suspicious", score: 0, signals: { ai_detection: { status: "not_assessed", reason: "ai_provider_error" } }, assessment: "none", not_assessed: ["ai_detection"] };
    expect(presentVerdict(unassessed)).toEqual(unassessed);
    const fresh = aggregateVerdict(["ai"], [capture({ ai_detection: ai("unknown", 0.3, "pixels") })]);
    expect(presentVerdict(fresh)).toEqual(fresh);
  });
});

describe("unreadable evidence", () => {
  const unreadable = { screen_detection: notAssessed("undecodable_image"), ai_detection: notAssessed("undecodable_image") };
  it("is when every live capture is no image: uploads beside them do not count", () => {
    expect(unreadableEvidence([capture(unreadable, false, "a"), capture(unreadable, false, "b")])).toBe(true);
    expect(unreadableEvidence([capture(unreadable, false, "a"), capture({ screen_detection: NOT_APPLICABLE }, true, "u")])).toBe(true);
  });
  it("is not when one live capture was read, a signal failed otherwise, or nothing is live", () => {
    expect(unreadableEvidence([capture(unreadable, false, "a"), capture({ screen_detection: screen(false, 0.2), ai_detection: ai("unknown", 0.3) }, false, "b")])).toBe(false);
    expect(unreadableEvidence([capture({ screen_detection: notAssessed("image_too_large"), ai_detection: ai("unknown", 0.3) }, false, "a")])).toBe(false);
    expect(unreadableEvidence([capture({ screen_detection: NOT_APPLICABLE }, true, "u")])).toBe(false);
    expect(unreadableEvidence([])).toBe(false);
  });
});

describe("independent checks", () => {
  it("condition: one-decimal average of the aspects and the spec's cut-offs", () => {
    const c = aggregateCondition(
      ["paint", "tyres"],
      [
        [{ name: "paint", score: 8, reasoning: "minor scratches" }, { name: "tyres", score: 6.55, reasoning: "worn" }],
        [{ name: "paint", score: 7, reasoning: "a dent" }, { name: "tyres", score: null, reasoning: "not visible" }],
      ],
      "n/a",
    );
    expect(c).toEqual({
      score: 7.1,
      label: "fair",
      aspects: [
        { name: "paint", score: 7.5, reasoning: "minor scratches a dent" },
        { name: "tyres", score: 6.6, reasoning: "worn" },
      ],
    });
    expect([conditionLabel(7.5), conditionLabel(7.4), conditionLabel(5), conditionLabel(4.9)]).toEqual(["good", "fair", "fair", "poor"]);
  });

  it("condition: an aspect no capture could score is listed as not assessed beside the scored ones, never dropped", () => {
    const c = aggregateCondition(
      ["paint", "tyres"],
      [[{ name: "paint", score: 8, reasoning: "minor scratches" }, { name: "tyres", score: null, reasoning: "not visible" }]],
      "n/a",
    );
    expect(c).toEqual({
      score: 8,
      label: "good",
      aspects: [{ name: "paint", score: 8, reasoning: "minor scratches" }],
      not_assessed: [{ name: "tyres", reasoning: "not visible" }],
    });
  });

  it("condition without any score is not assessed, never an invented number", () => {
    const c = aggregateCondition(["paint"], [null], "Could not be assessed: no vision provider configured.");
    expect(c).toEqual({ status: "not_assessed", reason: "Could not be assessed: no vision provider configured.", aspects: [{ name: "paint", reasoning: "Could not be assessed: no vision provider configured." }] });
  });

  it("object match: any match wins, mismatch needs every capture judged, otherwise inconclusive", () => {
    expect(aggregateObjectMatch("a bike", [{ status: "mismatch", confidence: 0.9 }, { status: "match", confidence: 0.7 }]).status).toBe("match");
    expect(aggregateObjectMatch("a bike", [{ status: "mismatch", confidence: 0.9 }, null]).status).toBe("inconclusive");
    expect(aggregateObjectMatch("a bike", [{ status: "mismatch", confidence: 0.9 }])).toEqual({ status: "mismatch", expected_object: "a bike" });
    expect(aggregateObjectMatch("a bike", [null]).status).toBe("inconclusive");
  });
});
