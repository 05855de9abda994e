import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { openAiCompatibleVisionJudge, workersAiVisionJudge, type AiRunner, type VisionRequest } from "../../src/providers/vision";
import { VISION_PROMPT_VERSION } from "../../src/providers/vision/prompt";
import { analyzeImage } from "../../src/analysis/analyze-image";
import { encodeThumbnailJpeg } from "../../src/analysis/thumbnail";
import { aggregateVerdict } from "../../src/analysis/verdict";
import { encodeJpeg, naturalScene } from "../helpers/synth";

const request: VisionRequest = {
  image: encodeThumbnailJpeg({ width: 8, height: 8, rgb: new Uint8Array(8 * 8 * 3).fill(120) }),
  context: { kind: "vehicle", summary: "A red city car", attributes: { plate: "AB-123" } },
  expected_object: "a red city car",
  condition_aspects: ["frame", "tyres"],
};

const judge = (model: string, timeoutMs?: number) =>
  openAiCompatibleVisionJudge({ url: `${env.FAKES_URL}/vision/v1`, model, apiKey: "test-key", ...(timeoutMs ? { timeoutMs } : {}) });

describe("OpenAI-compatible vision judge (loopback fake)", () => {
  it("a valid reply is validated, rounded and kept with the model and prompt version", async () => {
    const j = await judge("good").judge(request);
    expect(j).toMatchObject({ provider: "openai-compatible", model: "good", prompt_version: VISION_PROMPT_VERSION });
    expect(j.error).toBeUndefined();
    expect(j.context).toEqual({ status: "mismatch", confidence: 0.85, reasons: ["the photo shows a bicycle, not a car"] });
    expect(j.object).toEqual({ status: "match", confidence: 0.8, observed: ["bicycle"] });
    expect(j.condition).toEqual([
      { name: "frame", score: 7.3, reasoning: "light scratches" },
      { name: "tyres", score: null, reasoning: "not visible" },
    ]);
  });

  it("out-of-range scores and confidences are clamped", async () => {
    const j = await judge("clamp").judge(request);
    expect(j.context?.confidence).toBe(1);
    expect(j.object?.confidence).toBe(0);
    expect(j.condition?.map((a) => a.score)).toEqual([10, 0]);
  });

  it.each([
    ["prose", "not JSON"],
    ["missing", "misses a requested part"],
    ["http500", "HTTP 500"],
    ["garbage", "not JSON"],
  ])("a %s reply is inconclusive with the reason, never an invented score", async (model, reason) => {
    const j = await judge(model).judge(request);
    expect(j.error).toContain(reason);
    expect(j.context).toEqual({ status: "inconclusive", confidence: 0, reasons: [] });
    expect(j.object).toEqual({ status: "inconclusive", confidence: 0, observed: [] });
    expect(j.condition?.every((a) => a.score === null)).toBe(true);
  });

  it("a provider slower than the timeout is inconclusive", async () => {
    const j = await judge("slow", 500).judge(request);
    expect(j.error).toBe("provider timed out");
    expect(j.object?.status).toBe("inconclusive");
  });
});

describe("Workers AI vision judge (scripted AI binding)", () => {
  function scripted(reply: () => Promise<unknown>) {
    const calls: Array<{ model: string; inputs: any }> = [];
    const ai: AiRunner = { run: async (model, inputs) => (calls.push({ model, inputs }), reply()) };
    return { ai, calls };
  }

  it("sends the image as a data URI with a JSON schema at temperature 0 and validates the object reply", async () => {
    const { ai, calls } = scripted(async () => ({
      response: { context: { status: "match", confidence: 0.7 }, object: { status: "match", confidence: 0.9 }, condition: [{ name: "Frame", score: 4, reasoning: "rust" }] },
    }));
    const j = await workersAiVisionJudge(ai, "@cf/meta/llama-3.2-11b-vision-instruct").judge(request);
    expect(calls[0]!.model).toBe("@cf/meta/llama-3.2-11b-vision-instruct");
    expect(calls[0]!.inputs.temperature).toBe(0);
    expect(calls[0]!.inputs.response_format.type).toBe("json_schema");
    expect(calls[0]!.inputs.response_format.json_schema.required).toEqual(["context", "object", "condition"]);
    expect(calls[0]!.inputs.messages[1].content[1].image_url.url).toMatch(/^data:image\/jpeg;base64,\/9j\//);
    expect(j.context?.status).toBe("match");
    expect(j.condition).toEqual([
      { name: "frame", score: 4, reasoning: "rust" },
      { name: "tyres", score: null, reasoning: "Not visible in this capture." },
    ]);
  });

  it("a JSON string reply is parsed; JSON-mode failure, a bad shape and a timeout are inconclusive", async () => {
    const asString = await workersAiVisionJudge(scripted(async () => ({ response: '{"context":{"status":"mismatch","confidence":0.6},"object":{"status":"inconclusive","confidence":0.1},"condition":[]}' })).ai).judge(request);
    expect(asString.context).toMatchObject({ status: "mismatch", confidence: 0.6 });

    const jsonMode = await workersAiVisionJudge(scripted(async () => Promise.reject(new Error("JSON Mode couldn't be met"))).ai).judge(request);
    expect(jsonMode.error).toContain("JSON Mode couldn't be met");
    expect(jsonMode.context?.status).toBe("inconclusive");

    const badShape = await workersAiVisionJudge(scripted(async () => ({ response: { context: { status: "yes", confidence: "high" } } })).ai).judge(request);
    expect(badShape.error).toContain("does not follow the schema");

    const hang = await workersAiVisionJudge(scripted(() => new Promise(() => undefined)).ai, "m", 200).judge(request);
    expect(hang.error).toContain("timed out");
  });
});

describe("vision judge inside a capture's analysis", () => {
  it("a configured provider's mismatch becomes the context signal and trips the verdict", async () => {
    const result = await analyzeImage(
      {
        captureId: "cap_v",
        tenantId: "tnt_v",
        bytes: encodeJpeg(naturalScene(200, 150, 9)),
        mediaType: "image/jpeg",
        uploaded: false,
        depthPng: null,
        channel: "api",
        captureIntegrity: null,
        location: null,
        clientCapturedAt: null,
        required: ["context"],
        context: { kind: "vehicle", summary: "A red city car" },
        expectedObject: "a red city car",
        conditionAspects: ["frame", "tyres"],
      },
      { searchHistory: async () => ({ matches: [], shared: false }), vision: judge("good"), web: null, trustedSigners: [] },
    );
    expect(result.signals.context_match).toMatchObject({
      status: "mismatch",
      confidence: 0.85,
      provider: "openai-compatible",
      method_version: VISION_PROMPT_VERSION,
      evidence: [{ code: "context_mismatch", detail: "the photo shows a bicycle, not a car" }],
    });
    expect(result.vision?.object).toMatchObject({ status: "match" });
    const verdict = aggregateVerdict(["context"], [{ capture_id: "cap_v", uploaded: false, signals: result.signals }]);
    expect(verdict).toMatchObject({ label: "failed", reason_code: "context_mismatch", score: 0.85 });
  });
});

