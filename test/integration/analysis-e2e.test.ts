import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { callJson, createVerification, db, seedTenant, withVision } from "../helpers/api";
import { captureByKey, captureInline, hasVerdict, pollVerification, uploadDepthMap } from "../helpers/capture";
import { encodeDepthPng, encodeJpeg, encodePngRgb, exifTiff, insertSegment, naturalScene, recapture } from "../helpers/synth";
import { analysesOf } from "../../src/db/analyses";

describe("analysis end to end (real queue consumer)", () => {
  it("create → capture to the quota → consumer → completed, reason_code by priority when several signals trip", async () => {
    const t = await seedTenant();
    // An image reused from an earlier verification makes the reverse search trip as well.
    const reused = naturalScene(320, 256, 101);
    const earlier = await createVerification(t.key, { max_captures: 1, signals_required: ["reverse"] });
    await captureInline(earlier.id, encodeJpeg(reused, 92));
    await pollVerification(t.key, earlier.id, hasVerdict);

    const v = await createVerification(t.key, {
      steps: [{ key: "photos", type: "image", description: "The car", min: 3, max: 3 }],
      signals_required: ["screen", "ai", "reverse", "depth"],
      // Depth maps come through the API only (the hosted page's camera has none).
      capture_channel: "api",
    });
    // 1: a photo of a screen (pixel-grid moiré), with a flat depth map.
    const flat = await uploadDepthMap(v.id, encodeDepthPng(96, 72, (x, y) => 420 + x + y * 0.5));
    await captureInline(v.id, encodeJpeg(recapture(naturalScene(320, 256, 102), 4, 3), 90), { forensic_buffer_key: flat });
    // 2: a generator's PNG with its Stable Diffusion parameters.
    await captureInline(v.id, encodePngRgb(naturalScene(128, 96, 103), { parameters: "a car\nSteps: 25, Sampler: Euler a, CFG scale: 7, Seed: 5" }));
    // 3: the reused image, recompressed.
    const last = await captureInline(v.id, encodeJpeg(reused, 80));
    expect(last.status).toBe("partially_captured");
    expect(last.verdict).toBeUndefined();

    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.status).toBe("completed");
    expect(done.verdict.label).toBe("failed");
    expect(done.verdict.reason_code).toBe("screen_detected");
    expect(done.verdict.signals.screen_detection.screen_detected).toBe(true);
    // Decided from the PNG's generator chunk: the method says so, its evidence without the prompt's text.
    expect(done.verdict.signals.ai_detection).toEqual({ label: "likely_ai", confidence: 0.9, method: "provenance", evidence: [{ code: "sd_parameters_chunk" }] });
    expect(done.verdict.signals.reverse_search).toEqual({ found_online: false, match_count: 1, sources: ["service_history"] });
    expect(done.verdict.signals.depth.source).toBe("forensic_buffer");
    expect(done.verdict.signals.depth.confidence).toBeLessThan(0.25);
    expect(Object.keys(done.verdict.signals).sort()).toEqual(["ai_detection", "depth", "reverse_search", "screen_detection"]);

    // Per-capture results carry provider, method version and evidence codes.
    const rows = await analysesOf(db(), v.id);
    expect(rows).toHaveLength(3);
    const screenRow = rows.map((r) => r.result as any).find((r) => r.signals.screen_detection.screen_detected);
    expect(screenRow.signals.screen_detection).toMatchObject({ provider: "offline-moire", method_version: "screen-moire/6" });
    expect(screenRow.signals.screen_detection.evidence.map((e: any) => e.code)).toEqual(expect.arrayContaining(["moire_grid_peaks", "depth_planar_corroborates"]));
  });

  it("a clean live capture with the signals that can run verifies; an upload next to it is never a failure", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, {
      steps: [
        { key: "front", type: "image", description: "Front", min: 1, max: 1 },
        { key: "invoice", type: "upload", min: 1, max: 1 },
      ],
      signals_required: ["screen", "ai"],
    });
    await captureInline(v.id, encodeJpeg(naturalScene(256, 192, 211), 90), { step_key: "front" });
    await captureByKey(v.id, encodePngRgb(naturalScene(64, 64, 212), { parameters: "x\nSteps: 20, Sampler: Euler" }), "image/png", { step_key: "invoice" });
    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.verdict).toMatchObject({ label: "verified", assessment: "complete", not_assessed: [] });
    expect(done.verdict.reason_code).toBeUndefined();
    expect(done.verdict.score).toBeGreaterThan(0);
  });

  it("a provider gone after creation: its signal is not assessed and keeps a clean capture from verified, its checks stay inconclusive; reverse search still runs over the history", async () => {
    const t = await seedTenant();
    // Created where a vision provider was configured; the analysis Worker runs without one.
    const v = await createVerification(t.key, {
      steps: [
        { key: "front", type: "image", description: "Front", min: 1, max: 1 },
        { key: "invoice", type: "upload", min: 1, max: 1 },
      ],
      signals_required: ["screen", "ai", "reverse", "context"],
      context: { kind: "vehicle", summary: "A blue hatchback" },
      expected_object: "a blue hatchback",
      condition_aspects: ["bodywork"],
      expected_location: "48.8584, 2.2945",
    }, undefined, { env: withVision() });
    const camera = exifTiff({ make: "Google", model: "Pixel 8", dateTimeOriginal: "2026:05:01 10:00:00" });
    await captureInline(v.id, encodeJpeg(naturalScene(256, 192, 201), 90, camera), { step_key: "front", location: { lat: 48.8589, lng: 2.2945, accuracy_m: 8 } });
    // The upload is a generator output: it would trip ai_detection if it were live.
    await captureByKey(v.id, encodePngRgb(naturalScene(64, 64, 202), { parameters: "x\nSteps: 20, Sampler: Euler" }), "image/png", { step_key: "invoice" });

    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.status).toBe("completed");
    // Without a vision provider context is not assessed: never verified (fail closed), while screen,
    // AI and the reverse search over the service's own history still ran.
    expect(done.verdict).toMatchObject({ label: "suspicious", score: 0, reason_code: "not_assessed", assessment: "partial", not_assessed: ["context_match"] });
    expect(done.verdict.signals.reverse_search).toEqual({ found_online: false, match_count: 0, sources: ["service_history"] });
    expect(done.verdict.signals.context_match).toEqual({ status: "not_assessed", reason: "vision_not_configured" });
    expect(done.verdict.signals.ai_detection.label).toBe("unknown");
    expect(done.verdict.signals.screen_detection.screen_detected).toBe(false);
    expect(done.object_match).toEqual({ status: "inconclusive", expected_object: "a blue hatchback" });
    expect(done.condition).toMatchObject({ status: "not_assessed", aspects: [{ name: "bodywork" }] });
    expect(done.location_match).toMatchObject({ status: "verified", distance_m: 56, source: "device", expected_point: { lat: 48.8584, lng: 2.2945 } });
  });

  it("audit mode: every signal is not applicable", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, { max_captures: 1, mode: "audit", signals_required: ["screen", "ai"] });
    await captureInline(v.id, encodeJpeg(recapture(naturalScene(256, 192, 301), 4, 3), 90));
    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.verdict).toEqual({
      label: "verified",
      score: 0,
      signals: {
        screen_detection: { status: "not_applicable", reason: "uploaded_content" },
        ai_detection: { status: "not_applicable", reason: "uploaded_content" },
      },
      assessment: "none",
      not_assessed: [],
    });
  });

  it("submit before the quota settles too; a mock location is rejected", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, {
      steps: [{ key: "photos", type: "image", description: "Photos", min: 1, max: 3 }],
      expected_location: "48.8584, 2.2945",
    });
    await captureInline(v.id, encodeJpeg(naturalScene(128, 96, 401)), { location: { lat: 48.8584, lng: 2.2945, is_mock: true } });
    const submitted = await callJson(`/v1/verifications/${v.id}/submit`, { body: {} });
    expect(submitted.status).toBe(200);
    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.status).toBe("completed");
    // A mock fix is never compared, but the expected location is still resolved (docs/api.md).
    expect(done.location_match).toMatchObject({ status: "rejected", expected_point: { lat: 48.8584, lng: 2.2945 }, observed_point: { lat: 48.8584, lng: 2.2945 }, distance_m: null, tolerance_m: null, source: "device" });
  });

  it("a capture without a fix leaves the location ungeocoded, with the expected point resolved", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, { max_captures: 1, expected_location: "48.8584, 2.2945" });
    await captureInline(v.id, encodeJpeg(naturalScene(128, 96, 402)));
    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.location_match).toMatchObject({ status: "ungeocoded", expected_point: { lat: 48.8584, lng: 2.2945 }, observed_point: null, observed_location: null, distance_m: null, source: null });
  });

  it("test environments honour the documented vfy-test marker: every vision verdict path is reachable without a model", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, {
      max_captures: 1,
      signals_required: ["screen", "context"],
      context: { kind: "vehicle", summary: "A blue hatchback" },
      expected_object: "a blue hatchback",
      condition_aspects: ["bodywork", "glass"],
    }, undefined, { env: withVision() });
    const marked = insertSegment(encodeJpeg(naturalScene(160, 120, 501)), 0xfe, new TextEncoder().encode("vfy-test: context=mismatch; object=match; condition=8; condition.glass=3"));
    await captureInline(v.id, marked);
    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.verdict).toMatchObject({ label: "failed", reason_code: "context_mismatch", signals: { context_match: { status: "mismatch", confidence: 0.9 } } });
    expect(done.object_match).toEqual({ status: "match", expected_object: "a blue hatchback" });
    expect(done.condition).toEqual({
      score: 5.5,
      label: "fair",
      aspects: [
        { name: "bodywork", score: 8, reasoning: "test marker" },
        { name: "glass", score: 3, reasoning: "test marker" },
      ],
    });
  });

  it("a named expected_location is geocoded (Nominatim-compatible fake) with its uncertainty in the tolerance", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, { max_captures: 1, expected_location: "Eiffel Tower, Paris" });
    await captureInline(v.id, encodeJpeg(naturalScene(96, 72, 601)), { location: { lat: 48.8590, lng: 2.2950, accuracy_m: 10 } });
    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.location_match).toMatchObject({ status: "verified", expected_location: "Eiffel Tower, Paris", source: "device" });
    expect(done.location_match.expected_point).toEqual({ lat: 48.8582602, lng: 2.294499 });
    expect(done.location_match.distance_m).toBeGreaterThan(80);
    expect(done.location_match.tolerance_m).toBeGreaterThanOrEqual(100);
    // The geocoder's rate gate clears its window with an alarm: run it here.
    await runDurableObjectAlarm(env.RATE_LIMITERS.get(env.RATE_LIMITERS.idFromName("geocoder")));
  });
});
