import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { analyzeImage } from "../../src/analysis/analyze-image";
import { combineAiDetection } from "../../src/analysis/signals/ai-combine";
import type { AiResult } from "../../src/analysis/evidence";
import { aiDetectionProvider, sightengineGenAi } from "../../src/providers/ai-detection";
import { encodeJpeg, encodePngRgb, naturalScene } from "../helpers/synth";

/* The Sightengine adapter against a loopback fake that speaks its documented format (test/fakes/sightengine.ts). */

const jpeg = encodeJpeg(naturalScene(64, 48, 1));
const provider = (apiUser: string, options: { apiSecret?: string; timeoutMs?: number } = {}) =>
  sightengineGenAi({ apiUser, apiSecret: options.apiSecret ?? "secret", url: `${env.FAKES_URL}/sightengine`, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) });
const noMarker: AiResult = { label: "unknown", confidence: 0.1, method: "provenance", provider: "offline-provenance", method_version: "ai-provenance/1", evidence: [{ code: "no_generator_marker", value: 0 }] };
const combined = (outcome: Awaited<ReturnType<ReturnType<typeof provider>["detect"]>>) => combineAiDetection({ provenance: noMarker, pixels: null, provider: { name: "sightengine", outcome } });

describe("Sightengine genai (loopback fake)", () => {
  it("a generated image: the documented score, and the combination reads likely_ai decided by the provider", async () => {
    const outcome = await provider("ai").detect(jpeg, "image/jpeg");
    expect(outcome).toEqual({ score: 0.97, evidence: [{ code: "ai_provider_request", detail: "req_fake0001" }] });
    expect(combined(outcome)).toMatchObject({ label: "likely_ai", confidence: 0.97, method: "provider:sightengine" });
  });

  it("a photograph: a low score, read as unknown (no generator traces found), never as proof of a camera", async () => {
    const outcome = await provider("human").detect(jpeg, "image/jpeg");
    expect(outcome).toMatchObject({ score: 0.02 });
    expect(combined(outcome)).toMatchObject({ label: "unknown", confidence: 0.1, method: "provider:sightengine", evidence: [{ code: "ai_provider_score", value: 0.02 }, expect.anything(), expect.anything()] });
  });

  it("documented error answers are errors, with the provider's words; the signal is then not assessed", async () => {
    const cases: Array<[string, string | undefined, RegExp]> = [
      ["quota", undefined, /^HTTP 429: usage_limit: Daily usage limit reached$/],
      ["ai", "wrong-secret", /^HTTP 401: argument_error: Incorrect API user or API secret$/],
      ["failure", undefined, /^HTTP 200: media_error: Image could not be processed$/],
      ["not-json", undefined, /^HTTP 502: the answer is not JSON$/],
    ];
    for (const [user, secret, message] of cases) {
      const outcome = await provider(user, secret ? { apiSecret: secret } : {}).detect(jpeg, "image/jpeg");
      expect(outcome).toEqual({ error: expect.stringMatching(message) });
      expect(combined(outcome)).toMatchObject({ status: "not_assessed", reason: "ai_provider_error" });
    }
  });

  it("a success without a score in 0..1 is a malformed answer, not a clean image", async () => {
    const outcome = await provider("malformed").detect(jpeg, "image/jpeg");
    expect(outcome).toEqual({ error: "malformed answer: no type.ai_generated score in 0..1" });
    expect(combined(outcome)).toMatchObject({ status: "not_assessed", reason: "ai_provider_error" });
  });

  it("a provider slower than the timeout is an error", async () => {
    const outcome = await provider("slow", { timeoutMs: 300 }).detect(jpeg, "image/jpeg");
    expect(outcome).toEqual({ error: "timeout" });
    // The same answer within the timeout is a score: the timeout, not the answer, failed it.
    expect(await provider("slow").detect(jpeg, "image/jpeg")).toMatchObject({ score: 0.02 });
  });

  it("the request is the documented multipart one: the fake refuses a body that is not the image it claims", async () => {
    const png = encodePngRgb(naturalScene(16, 16, 2));
    expect(await provider("ai").detect(png, "image/jpeg")).toEqual({ error: "HTTP 400: media_error: media is not the image/jpeg it claims" });
    expect(await provider("ai").detect(png, "image/png")).toMatchObject({ score: 0.97 });
  });

  it("through a capture's analysis: the provider gets the original without its metadata, decides, and a failing one leaves the signal not assessed with a note", async () => {
    const capture = (aiProvider: ReturnType<typeof provider>) =>
      analyzeImage(
        { captureId: "cap_1", tenantId: "tnt_a", bytes: encodeJpeg(naturalScene(640, 480, 3), 92), mediaType: "image/jpeg", uploaded: false, depthPng: null, location: null, clientCapturedAt: null, required: ["ai"], channel: "api", captureIntegrity: null },
        { searchHistory: async () => ({ matches: [], shared: false }), vision: null, web: null, trustedSigners: [], aiProvider },
      );
    const generated = await capture(provider("ai"));
    expect(generated.signals.ai_detection).toMatchObject({ label: "likely_ai", confidence: 0.97, method: "provider:sightengine", provider: "sightengine" });
    expect(generated.timings_ms).toHaveProperty("ai_provider");
    expect((generated.signals.ai_detection as { evidence: unknown[] }).evidence).toContainEqual({ code: "ai_provider_input", value: "original_stripped", detail: expect.stringMatching(/^the original image\/jpeg, \d+ bytes/) });
    expect((await capture(provider("human"))).signals.ai_detection).toMatchObject({ label: "unknown", method: "provider:sightengine" });
    const down = await capture(provider("quota"));
    expect(down.signals.ai_detection).toMatchObject({ status: "not_assessed", reason: "ai_provider_error" });
    expect(down.notes).toEqual([{ code: "ai_provider_error", signal: "ai_detection", detail: "sightengine: HTTP 429: usage_limit: Daily usage limit reached" }]);
  });

  it("is configured by both secrets, or not at all", () => {
    expect(aiDetectionProvider({ ...env, SIGHTENGINE_API_USER: "u" } as Env)).toBeNull();
    expect(aiDetectionProvider({ ...env, SIGHTENGINE_API_SECRET: "s" } as Env)).toBeNull();
    expect(aiDetectionProvider({ ...env, SIGHTENGINE_API_USER: "u", SIGHTENGINE_API_SECRET: "s" } as Env)?.name).toBe("sightengine");
  });
});
