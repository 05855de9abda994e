import { describe, expect, it } from "vitest";
import { newVerificationRow, type CaptureRow, type VerificationRecord } from "../../src/db/verifications";
import { certifiedSignals, methodOf } from "../../src/domain/certificates/signals";
import type { SignalName } from "../../src/schemas/verification-create";

/*
 * `verification.verdict.signals` of a certificate (issue 33): each required signal's status from the
 * verdict, and the method that decided it from the captures' stored results.
 */

function record(required: SignalName[], captures: Array<{ id: string; stepType?: "image" | "upload" }>, mode?: "audit"): VerificationRecord {
  const row = newVerificationRow({
    id: "vfy_1",
    tenantId: "tnt_1",
    config: { max_captures: captures.length, steps: [], signals_required: required, ...(mode ? { mode } : {}) },
    sealEnabled: false,
    createdAt: 0,
    expiresAt: 1,
  });
  const rows = captures.map((c, i) => ({ id: c.id, stepType: c.stepType ?? "image", stepKey: "s", seq: i + 1 }) as CaptureRow);
  return { row, captures: rows, answers: [] };
}

const moire = { screen_detected: false, confidence: 0.8, provider: "offline-moire", method_version: "screen-moire/5", evidence: [] };

describe("the method of a stored signal result", () => {
  it("is the result's own method when it names one, else derived from its provider", () => {
    expect(methodOf({ ...moire, method: "provider:hive" })).toBe("provider:hive");
    expect(methodOf(moire)).toBe("pixels");
    expect(methodOf({ provider: "offline-provenance" })).toBe("provenance");
    expect(methodOf({ provider: "offline-depth-plane" })).toBe("depth_map");
    expect(methodOf({ source: "capture_burst", provider: "capture-burst", method_version: "capture-burst/1" })).toBe("capture_burst");
    expect(methodOf({ provider: "internal-phash" })).toBe("perceptual_hash");
    expect(methodOf({ provider: "internal-phash+google-web-detection" })).toBe("perceptual_hash+provider:google-web-detection");
    expect(methodOf({ provider: "workers-ai" })).toBe("provider:workers-ai");
    expect(methodOf({ status: "not_assessed", reason: "image_too_small" })).toBeUndefined();
    expect(methodOf(null)).toBeUndefined();
  });
});

describe("a certificate's signals", () => {
  it("maps every required signal, keyed as in the verdict, to its status and the methods of the live captures", () => {
    const r = record(["screen", "ai", "reverse", "depth"], [{ id: "cap_a" }, { id: "cap_b" }, { id: "cap_up", stepType: "upload" }]);
    const verdict = {
      screen_detection: { screen_detected: false, confidence: 0.8 },
      ai_detection: { label: "likely_human", confidence: 0.9 },
      reverse_search: { status: "not_assessed", reason: "low_texture" },
      // depth absent from a stored verdict: never read as assessed
    };
    const analyses = [
      { captureId: "cap_a", signals: { screen_detection: moire, ai_detection: { label: "likely_human", provider: "offline-provenance" }, reverse_search: { status: "not_assessed", reason: "low_texture" } } },
      { captureId: "cap_b", signals: { screen_detection: moire, ai_detection: { label: "likely_human", provider: "offline-pixels", method: "pixels" } } },
      // An upload's method never counts toward a signal.
      { captureId: "cap_up", signals: { screen_detection: { ...moire, method: "provider:elsewhere" } } },
    ];
    expect(certifiedSignals(r, verdict, analyses)).toEqual({
      screen_detection: { status: "assessed", method: "pixels" },
      ai_detection: { status: "assessed", method: "pixels, provenance" },
      reverse_search: { status: "not_assessed" },
      depth: { status: "not_assessed" },
    });
  });

  it("audit mode: every signal not applicable; a signal the verdict does not require is left out", () => {
    const r = record(["screen"], [{ id: "cap_a" }], "audit");
    const signals = certifiedSignals(r, { screen_detection: { status: "not_applicable", reason: "uploaded_content" }, ai_detection: { label: "unknown" } }, [
      { captureId: "cap_a", signals: { screen_detection: { status: "not_applicable", reason: "uploaded_content" } } },
    ]);
    expect(signals).toEqual({ screen_detection: { status: "not_applicable" } });
  });

  it("an assessed signal whose results name no provider has no method (never a made-up one)", () => {
    const r = record(["screen"], [{ id: "cap_a" }]);
    expect(certifiedSignals(r, { screen_detection: { screen_detected: false, confidence: 0.8 } }, [{ captureId: "cap_a", signals: null }])).toEqual({
      screen_detection: { status: "assessed" },
    });
  });
});
