import { describe, expect, it } from "vitest";
import { analyzeImage, type ImageInput } from "../../src/analysis/analyze-image";
import { encodeJpeg, encodePngRgb, insertSegment, naturalScene } from "../helpers/synth";

const input = (bytes: Uint8Array, mediaType = "image/jpeg"): ImageInput => ({
  captureId: "cap_1",
  tenantId: "tnt_a",
  bytes,
  mediaType,
  uploaded: false,
  depthPng: null,
  channel: "api",
  captureIntegrity: null,
  location: null,
  clientCapturedAt: null,
  required: ["context"],
  context: { kind: "vehicle", summary: "A car" },
});
const deps = (testMarkers: boolean) => ({ searchHistory: async () => ({ matches: [], shared: false }), vision: null, web: null, trustedSigners: [], testMarkers });
const marked = insertSegment(encodeJpeg(naturalScene(64, 48, 1)), 0xfe, new TextEncoder().encode("vfy-test: context=match"));

describe("vfy-test markers", () => {
  it("are honoured in test environments (JPEG comment or PNG chunk)", async () => {
    expect((await analyzeImage(input(marked), deps(true))).signals.context_match).toMatchObject({ status: "match", confidence: 0.9, provider: "test-marker" });
    const png = encodePngRgb(naturalScene(64, 48, 2), { "vfy-test": "context=mismatch" });
    expect((await analyzeImage(input(png, "image/png"), deps(true))).signals.context_match).toMatchObject({ status: "mismatch" });
  });

  it("are ignored in production: without a provider the context is not assessed", async () => {
    const result = await analyzeImage(input(marked), deps(false));
    expect(result.signals.context_match).toEqual({ status: "not_assessed", reason: "vision_not_configured" });
  });
});
