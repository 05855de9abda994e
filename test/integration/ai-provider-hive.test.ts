import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { combineAiDetection } from "../../src/analysis/signals/ai-combine";
import { stripMetadata } from "../../src/analysis/strip-metadata";
import { hiveAiGenerated } from "../../src/providers/ai-detection-hive";
import { aiDetectionProvider } from "../../src/providers/ai-detection";
import { analyseWith, bodyCutOffByAbort, noMarker, requestsTo, sha256Hex } from "../helpers/ai-providers";
import { samplePhoto } from "../helpers/photos";
import { encodeJpeg, exifTiff, naturalScene } from "../helpers/synth";

/* The Hive adapter against a loopback fake that speaks its documented format (test/fakes/hive.ts). */

const jpeg = encodeJpeg(naturalScene(64, 48, 1));
const provider = (apiKey: string, options: { timeoutMs?: number; maxBytes?: number } = {}) => hiveAiGenerated({ apiKey, url: `${env.FAKES_URL}/hive`, ...options });
const combined = (outcome: Awaited<ReturnType<ReturnType<typeof provider>["detect"]>>) => combineAiDetection({ provenance: noMarker, pixels: null, provider: { name: "hive", outcome } });

describe("Hive AI-generated image detection (loopback fake)", () => {
  it("sends the documented request: POST /api/v2/task/sync, Authorization: Token <key>, multipart with media only", async () => {
    const outcome = await provider("ai:request").detect(jpeg, "image/jpeg");
    expect(outcome).toEqual({ score: 0.97, evidence: [{ code: "ai_provider_request", detail: "hive-task-0001" }] });
    const [sent, ...more] = await requestsTo("hive", "ai:request");
    expect(more).toEqual([]);
    expect(sent).toMatchObject({ method: "POST", path: "/api/v2/task/sync", headers: { authorization: "Token ai:request", accept: "application/json" } });
    expect(sent!.body).toEqual({ media: { type: "image/jpeg", name: "capture.jpg", size: jpeg.length, sha256: await sha256Hex(jpeg) } });
    expect(combined(outcome)).toMatchObject({ label: "likely_ai", confidence: 0.97, method: "provider:hive" });
  });

  it("a photograph: a low ai_generated score reads unknown, never proof of a camera", async () => {
    const outcome = await provider("human").detect(jpeg, "image/jpeg");
    expect(outcome).toMatchObject({ score: 0.02 });
    expect(combined(outcome)).toMatchObject({ label: "unknown", confidence: 0.1, method: "provider:hive" });
  });

  it("documented errors, a failed task, a malformed answer and a page that is not JSON are errors; the signal is then not assessed", async () => {
    const cases: Array<[string, string]> = [
      ["quota", "HTTP 429: Project has been rate limited"],
      ["wrong-key", "HTTP 401: Invalid API key"],
      ["task-error", "task failed: 3300 CLASSIFIER_ERROR_CORRUPT_FILE"],
      ["malformed", "malformed answer: no ai_generated score in 0..1"],
      ["not-json", "HTTP 502: the answer is not JSON"],
    ];
    for (const [key, error] of cases) {
      const outcome = await provider(key).detect(jpeg, "image/jpeg");
      expect(outcome, key).toEqual({ error });
      expect(combined(outcome)).toMatchObject({ status: "not_assessed", reason: "ai_provider_error" });
    }
  });

  it("a provider slower than the timeout is an error, the same answer in time a score", async () => {
    expect(await provider("slow", { timeoutMs: 300 }).detect(jpeg, "image/jpeg")).toEqual({ error: "timeout" });
    expect(await provider("slow").detect(jpeg, "image/jpeg")).toMatchObject({ score: 0.02 });
  });

  it("an answer whose body the timeout cut off is the timeout, not 'the answer is not JSON'", async () => {
    // postForJson, shared with Sightengine.
    expect(await hiveAiGenerated({ apiKey: "k", url: "https://hive.invalid", fetcher: bodyCutOffByAbort, timeoutMs: 5 }).detect(jpeg, "image/jpeg")).toEqual({ error: "timeout" });
  });

  it("through a capture's analysis: Hive gets the original with its metadata stripped, byte for byte, and decides", async () => {
    const original = encodeJpeg(naturalScene(800, 600, 4), 92, exifTiff({ make: "Canon", model: "EOS R5", gps: { lat: 48.8566, lng: 2.3522 } }));
    const expected = stripMetadata(original, "image/jpeg", Infinity);
    if (!expected.ok) throw new Error("the test image could not be stripped");
    const result = await analyseWith(provider("ai:capture"), original, "image/jpeg");
    expect(result.signals.ai_detection).toMatchObject({ label: "likely_ai", confidence: 0.97, method: "provider:hive" });
    expect((result.signals.ai_detection as { evidence: unknown[] }).evidence).toContainEqual({ code: "ai_provider_input", value: "original_stripped", detail: expect.stringContaining("removed: APP1 Exif") });
    const [sent] = await requestsTo("hive", "ai:capture");
    expect(sent!.body).toEqual({ media: { type: "image/jpeg", name: "capture.jpg", size: expected.bytes.length, sha256: await sha256Hex(expected.bytes) } });
    expect(expected.bytes.length).toBeLessThan(original.length);
  });

  it("an original over the provider's limit, or a HEIC, is sent as the bounded JPEG re-encode, and the evidence says so", async () => {
    const original = encodeJpeg(naturalScene(1600, 1200, 5), 95);
    const over = await analyseWith(provider("human:oversize", { maxBytes: 20_000 }), original, "image/jpeg");
    expect((over.signals.ai_detection as { evidence: unknown[] }).evidence).toContainEqual({ code: "ai_provider_input", value: "reencoded_jpeg", detail: expect.stringContaining("over the provider's 20000") });
    const [sent] = await requestsTo("hive", "human:oversize");
    expect(sent!.body).toMatchObject({ media: { type: "image/jpeg" } });
    expect((sent!.body as { media: { size: number } }).media.size).toBeLessThan(original.length);
    expect((sent!.body as { media: { sha256: string } }).media.sha256).not.toBe(await sha256Hex(original));
    const heic = await analyseWith(provider("human:heic"), await samplePhoto("dune.heic"), "image/heic");
    expect((heic.signals.ai_detection as { evidence: unknown[] }).evidence).toContainEqual({ code: "ai_provider_input", value: "reencoded_jpeg", detail: expect.stringContaining("image/heic is not a format") });
    expect((await requestsTo("hive", "human:heic"))[0]!.body).toMatchObject({ media: { type: "image/jpeg", name: "capture.jpg" } });
  });

  it("is configured by HIVE_API_KEY", () => {
    expect(aiDetectionProvider({ ...env, HIVE_API_KEY: "k" } as Env)?.name).toBe("hive");
    expect(aiDetectionProvider({ ...env } as Env)).toBeNull();
  });
});
