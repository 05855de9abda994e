import { describe, expect, it } from "vitest";
import { analyzeImage, type ImageInput } from "../../src/analysis/analyze-image";
import { encodeJpeg, encodePngRgb, naturalScene } from "../helpers/synth";

const deps = { nearDuplicates: async () => [], vision: null, web: null, trustedSigners: [] };
const input = (bytes: Uint8Array, mediaType: string, extra: Partial<ImageInput> = {}): ImageInput => ({
  captureId: "cap_1",
  tenantId: "tnt_a",
  bytes,
  mediaType,
  uploaded: false,
  depthPng: null,
  location: null,
  clientCapturedAt: null,
  required: ["screen", "ai", "reverse", "depth"],
  ...extra,
});
const codes = (signal: unknown) => (signal as { evidence: Array<{ code: string }> }).evidence.map((e) => e.code);

describe("one capture's analysis", () => {
  it("a format without a workerd decoder (WebP) keeps the metadata signals and says the pixels are unavailable", async () => {
    const webp = new TextEncoder().encode("RIFF\x24\x00\x00\x00WEBPVP8 ");
    const result = await analyzeImage(input(webp, "image/webp"), deps);
    expect(result.dimensions).toBeNull();
    expect(result.phash).toBeNull();
    expect(codes(result.signals.screen_detection)).toEqual(["pixels_unavailable"]);
    expect(codes(result.signals.reverse_search)).toContain("hash_unavailable");
    expect(result.signals.ai_detection).toMatchObject({ label: "unknown" });
  });

  it("a corrupt JPEG records the decode error instead of failing the analysis", async () => {
    const jpeg = encodeJpeg(naturalScene(64, 48, 1));
    const broken = jpeg.slice(0, 40);
    const result = await analyzeImage(input(broken, "image/jpeg"), deps);
    expect(result.decode_error).toBeTruthy();
    expect(codes(result.signals.screen_detection)).toEqual(["pixels_unavailable"]);
  });

  it("a malformed depth map is unavailable depth, not a failure", async () => {
    const result = await analyzeImage(input(encodeJpeg(naturalScene(64, 48, 2)), "image/jpeg", { depthPng: encodePngRgb(naturalScene(8, 8, 3)) }), deps);
    expect(result.signals.depth).toMatchObject({ source: "unavailable", confidence: 0 });
    expect(codes(result.signals.depth)).toEqual(["depth_map_unreadable"]);
  });

  it("uploaded content: verdict signals not applicable, the offline measurements still kept for the case analysis", async () => {
    const png = encodePngRgb(naturalScene(64, 48, 4), { parameters: "x\nSteps: 20, Sampler: Euler" });
    const result = await analyzeImage(input(png, "image/png", { uploaded: true }), deps);
    expect(result.signals.ai_detection).toEqual({ status: "not_applicable", reason: "uploaded_content" });
    expect(result.observed.ai_detection.label).toBe("likely_ai");
    expect(result.phash?.hash).toMatch(/^[0-9a-f]{16}$/);
  });
});
