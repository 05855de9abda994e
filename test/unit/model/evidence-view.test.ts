import { describe, expect, it } from "vitest";
import type { CaptureAnalysisRow } from "../../../src/db/analyses";
import { presentAnalysis, presentSignal, redactAnalysisResult } from "../../../src/model/evidence/analysis-view";
import { signToken } from "../../../src/lib/crypto";
import { openEvidenceToken, signEvidenceUrl, EVIDENCE_URL_TTL_MS } from "../../../src/storage/evidence-urls";

const SECRET = "unit-signing-secret-0123456789abcdef0123";

function row(result: unknown, over: Partial<CaptureAnalysisRow> = {}): CaptureAnalysisRow {
  return { captureId: "cap_1", verificationId: "vfy_1", status: "completed", result, error: null, analyzedAt: 1_800_000_000_000, thumbnail: { key: "k" }, ...over };
}

const screen = {
  screen_detected: false,
  confidence: 0.42,
  provider: "offline-moire",
  method_version: "screen-moire/1",
  evidence: [{ code: "no_grid_peaks", value: 3.1, detail: "5 tiles" }],
};
const reverse = {
  found_online: false,
  match_count: 1,
  matches: [{ capture_id: "cap_other", verification_id: "vfy_other_tenant", distance: 2 }],
  provider: "internal-dhash",
  method_version: "reverse-search/1",
  evidence: [
    { code: "internal_near_duplicate", value: 1, detail: "dhash64 00ff" },
    { code: "near_duplicate", value: 2, detail: "another tenant's verification" },
    { code: "web_search_not_configured" },
  ],
};

describe("per-capture analysis view", () => {
  it("splits an evaluated signal into its value and provenance; other verifications' ids never show", () => {
    const view = presentAnalysis(row({ dimensions: { width: 640, height: 480 }, signals: { screen_detection: screen, reverse_search: reverse, depth: screen } }), ["screen_detection", "reverse_search"]);
    expect(view.status).toBe("completed");
    expect(view.analyzed_at).toBe("2027-01-15T08:00:00.000Z");
    expect(Object.keys(view.signals)).toEqual(["screen_detection", "reverse_search"]);
    expect(view.signals.screen_detection).toEqual({
      status: "assessed",
      value: { screen_detected: false },
      confidence: 0.42,
      evidence: [{ code: "no_grid_peaks", value: 3.1, detail: "5 tiles" }],
      provider: "offline-moire",
      method_version: "screen-moire/1",
    });
    expect(view.signals.reverse_search).toMatchObject({ status: "assessed", value: { found_online: false, match_count: 1 } });
    expect(JSON.stringify(view)).not.toContain("vfy_other_tenant");
    expect(view.notes).toEqual([{ code: "web_search_not_configured" }]);
  });

  it("ai_detection shows what decided it; a result stored before `method` existed reads provenance; a provider error is a note", () => {
    const stored = { label: "likely_ai", confidence: 0.9, provider: "offline-provenance", method_version: "ai-provenance/1", evidence: [{ code: "sd_parameters_chunk", detail: "a car" }] };
    const old = presentAnalysis(row({ dimensions: { width: 64, height: 48 }, signals: { ai_detection: stored } }), ["ai_detection"]);
    expect(old.signals.ai_detection).toMatchObject({ status: "assessed", value: { label: "likely_ai", method: "provenance" }, provider: "offline-provenance" });
    const byPixels = { ...stored, method: "pixels", provider: "offline-pixels", evidence: [{ code: "pixel_score", value: 0.83 }] };
    expect(presentAnalysis(row({ dimensions: { width: 64, height: 48 }, signals: { ai_detection: byPixels } }), ["ai_detection"]).signals.ai_detection).toMatchObject({
      value: { label: "likely_ai", method: "pixels" },
      evidence: [{ code: "pixel_score", value: 0.83 }],
    });
    const failed = { status: "not_assessed", reason: "ai_provider_error", provider: "sightengine", method_version: "ai-provider/1", evidence: [{ code: "ai_provider_error", detail: "sightengine: timeout" }] };
    const view = presentAnalysis(row({ dimensions: { width: 64, height: 48 }, signals: { ai_detection: failed } }), ["ai_detection"]);
    expect(view.signals.ai_detection).toEqual(failed);
    expect(view.notes).toEqual([{ code: "ai_provider_error", signal: "ai_detection" }]);
  });

  it("a signal the analysis could not run shows as not_assessed with its reason, never as clean", () => {
    const notAssessed = { status: "not_assessed", reason: "pixels_unavailable", provider: "offline-moire", method_version: "screen-moire/2" };
    expect(presentSignal(notAssessed)).toEqual(notAssessed);
    expect(presentSignal({ status: "not_applicable", reason: "uploaded_content" })).toEqual({ status: "not_applicable", reason: "uploaded_content" });
    const view = presentAnalysis(row({ media_type: "image/webp", dimensions: null, decode_error: null, signals: { screen_detection: notAssessed } }, { thumbnail: null }), ["screen_detection"]);
    expect(view.signals.screen_detection!.status).toBe("not_assessed");
    expect(view.notes[0]).toEqual({ code: "pixels_unavailable", detail: "no decoder for image/webp" });
  });

  it("pending without a row, failed with the error as a note", () => {
    expect(presentAnalysis(undefined, ["screen_detection"])).toEqual({ status: "pending", signals: {}, notes: [] });
    const failed = presentAnalysis(row(null, { status: "failed", error: "evidence could not be analysed after retries" }), ["screen_detection"]);
    expect(failed).toMatchObject({ status: "failed", signals: {}, notes: [{ code: "analysis_failed", detail: "evidence could not be analysed after retries" }] });
  });

  it("redaction keeps signal codes and numbers, drops details, EXIF, locations, vision reasoning and the hash", () => {
    const stored = {
      version: "capture-analysis/1",
      capture_id: "cap_1",
      uploaded: false,
      media_type: "image/jpeg",
      dimensions: { width: 640, height: 480 },
      phash: { algorithm: "dhash64", hash: "00ff00ff00ff00ff" },
      metadata: { make: "Canon", gps: { lat: 40.1, lng: -3.7, accuracy_m: 5 } },
      location: { source: "exif", lat: 40.1, lng: -3.7 },
      vision: { context: { reasons: ["A red car in front of 12 Main Street"] } },
      signals: { screen_detection: screen, reverse_search: reverse },
      decode_error: null,
    };
    const redacted = redactAnalysisResult(stored)!;
    const text = JSON.stringify(redacted);
    for (const gone of ["Canon", "40.1", "Main Street", "00ff00ff00ff00ff", "5 tiles", "vfy_other_tenant"]) expect(text).not.toContain(gone);
    expect(redacted.redacted).toBe(true);
    const view = presentAnalysis(row(redacted, { thumbnail: null }), ["screen_detection"]);
    expect(view.signals.screen_detection).toEqual({ ...presentSignal(screen), evidence: [{ code: "no_grid_peaks", value: 3.1 }] });
    expect(view.notes).toEqual([]);
  });
});

describe("signed evidence URLs", () => {
  const ref = { captureId: "cap_01JD2Y4N9M6Q8R0S2T4V6W8X0Z", variant: "thumbnail" as const, sha256: "a".repeat(64) };
  const now = 1_800_000_000_000;

  it("open the object they were signed for until they expire", async () => {
    const url = await signEvidenceUrl(SECRET, "https://verify.example.com", ref, now);
    expect(url.startsWith("https://verify.example.com/v1/evidence/")).toBe(true);
    const token = url.slice(url.lastIndexOf("/") + 1);
    expect(await openEvidenceToken(SECRET, token, now + EVIDENCE_URL_TTL_MS - 1)).toEqual({ ok: true, ref, expiresAt: now + EVIDENCE_URL_TTL_MS });
    expect(await openEvidenceToken(SECRET, token, now + EVIDENCE_URL_TTL_MS)).toEqual({ ok: false, reason: "expired" });
    expect(await signEvidenceUrl(SECRET, "https://verify.example.com", ref, now)).not.toBe(url);
    expect(await openEvidenceToken("another-secret-0123456789abcdef0123456789", token, now)).toEqual({ ok: false, reason: "invalid" });
  });

  it("refuse another object spliced into the token, and an upload token in its place", async () => {
    const url = await signEvidenceUrl(SECRET, "https://x", ref, now);
    const [body, sig] = url.slice(url.lastIndexOf("/") + 1).split(".");
    const claims = JSON.parse(atob(body!.replace(/-/g, "+").replace(/_/g, "/")));
    const encode = (value: unknown) => btoa(JSON.stringify(value)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    for (const forged of [{ ...claims, c: "cap_01JD2Y4N9M6Q8R0S2T4V6W8X0A" }, { ...claims, v: "image" }, { ...claims, exp: claims.exp + 3_600_000 }]) {
      expect(await openEvidenceToken(SECRET, `${encode(forged)}.${sig}`, now)).toEqual({ ok: false, reason: "invalid" });
    }
    const upload = await signToken(SECRET, "upload", claims);
    expect(await openEvidenceToken(SECRET, upload, now)).toEqual({ ok: false, reason: "invalid" });
  });
});
