import { describe, expect, it } from "vitest";
import { analyzeImage, type ImageInput } from "../../src/analysis/analyze-image";
import type { DecodedImage } from "../../src/analysis/decoders";
import type { AiResult } from "../../src/analysis/evidence";
import type { AiDetectionProvider, AiProviderOutcome } from "../../src/analysis/signals/ai-combine";
import { jpegBomb } from "../helpers/bombs";
import { decodeRgb, encodeJpeg, encodePngRgb, exifTiff, insertSegment, naturalScene, xmpSegment, xmpWithSourceType } from "../helpers/synth";

const deps = { searchHistory: async () => ({ matches: [], shared: false }), vision: null, web: null, trustedSigners: [] };
const input = (bytes: Uint8Array, mediaType: string, extra: Partial<ImageInput> = {}): ImageInput => ({
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
  required: ["screen", "ai", "reverse", "depth"],
  ...extra,
});
const codes = (signal: unknown) => (signal as { evidence: Array<{ code: string }> }).evidence.map((e) => e.code);

describe("one capture's analysis", () => {
  it("a file that is no image at all: every signal is not assessed, the metadata-based ones too, with notes saying why", async () => {
    const webp = new TextEncoder().encode("RIFF\x24\x00\x00\x00WEBPVP8 ");
    const result = await analyzeImage(input(webp, "image/webp"), deps);
    expect(result.dimensions).toBeNull();
    expect(result.phash).toBeNull();
    const undecodable = { status: "not_assessed", reason: "undecodable_image" };
    expect(result.signals).toEqual({ screen_detection: undecodable, ai_detection: undecodable, reverse_search: undecodable, depth: undecodable });
    // The raw measurement stays for the case analysis.
    expect(codes(result.observed.screen_detection)).toEqual(["pixels_unavailable"]);
    expect(result.notes).toEqual([
      { code: "undecodable_image", detail: expect.stringContaining("WebP") },
      { code: "undecodable_image", signal: "screen_detection" },
      { code: "undecodable_image", signal: "ai_detection" },
      { code: "undecodable_image", signal: "reverse_search" },
      { code: "undecodable_image", signal: "depth" },
    ]);
  });

  it("a truncated JPEG whose EXIF names a generator is still no evidence: ai_detection is not assessed, not likely_ai", async () => {
    const marked = encodeJpeg(naturalScene(64, 48, 9), 90, exifTiff({ userComment: "x\nSteps: 30, Sampler: DPM++ 2M, Seed: 4" }));
    // Cut inside the entropy-coded data: the EXIF segment is intact, the pixels are not.
    const cut = marked.slice(0, marked.length - Math.floor((marked.length - 400) / 2));
    const whole = await analyzeImage(input(marked, "image/jpeg", { required: ["ai"] }), deps);
    expect(whole.signals.ai_detection).toMatchObject({ label: "likely_ai" });
    const result = await analyzeImage(input(cut, "image/jpeg", { required: ["ai", "context"], context: { kind: "car", summary: "A car" } }), deps);
    expect(result.decode_error).toBeTruthy();
    expect(result.signals.ai_detection).toEqual({ status: "not_assessed", reason: "undecodable_image" });
    expect(result.signals.context_match).toEqual({ status: "not_assessed", reason: "undecodable_image" });
  });

  it("a corrupt JPEG records the decode error instead of failing the analysis", async () => {
    const jpeg = encodeJpeg(naturalScene(64, 48, 1));
    const broken = jpeg.slice(0, 40);
    const result = await analyzeImage(input(broken, "image/jpeg"), deps);
    expect(result.decode_error).toBeTruthy();
    expect(result.signals.screen_detection).toEqual({ status: "not_assessed", reason: "undecodable_image" });
  });

  it("a photo whose XMP declares IPTC screenCapture reads as a screen, the declaration named in the evidence", async () => {
    const shot = insertSegment(encodeJpeg(naturalScene(256, 192, 5)), 0xe1, xmpSegment(xmpWithSourceType("http://cv.iptc.org/newscodes/digitalsourcetype/screenCapture")));
    const result = await analyzeImage(input(shot, "image/jpeg", { required: ["screen"] }), deps);
    expect(result.signals.screen_detection).toMatchObject({ screen_detected: true, confidence: 0.9, provider: "offline-moire" });
    expect(codes(result.observed.screen_detection)[0]).toBe("provenance_screen_capture");
  });

  it("a malformed depth map is not assessed depth, not a failure", async () => {
    const result = await analyzeImage(input(encodeJpeg(naturalScene(64, 48, 2)), "image/jpeg", { depthPng: encodePngRgb(naturalScene(8, 8, 3)) }), deps);
    expect(result.signals.depth).toEqual({ status: "not_assessed", reason: "depth_map_unreadable" });
    expect(codes(result.observed.depth)).toEqual(["depth_map_unreadable"]);
  });

  it("reverse search is assessed over the service's history alone; a vision-less context is not configured; the others still run", async () => {
    const result = await analyzeImage(
      input(encodeJpeg(naturalScene(256, 192, 5)), "image/jpeg", { required: ["screen", "ai", "reverse", "context"], context: { kind: "vehicle", summary: "A car" } }),
      deps,
    );
    expect(result.signals.reverse_search).toMatchObject({ found_online: false, match_count: 0, sources: ["service_history"], provider: "internal-phash" });
    expect(result.signals.context_match).toEqual({ status: "not_assessed", reason: "vision_not_configured" });
    expect(result.signals.screen_detection).toMatchObject({ screen_detected: false, provider: "offline-moire" });
    // Depth is not required here: no note for it.
    expect(result.notes.map((n) => [n.code, n.signal])).toEqual([["vision_not_configured", "context_match"]]);
    // A copy already in the history is a finding; the shared pool, when the tenant opted in, is a source.
    const copied = await analyzeImage(input(encodeJpeg(naturalScene(256, 192, 5)), "image/jpeg"), {
      ...deps,
      searchHistory: async () => ({ matches: [{ capture_id: "cap_x", verification_id: "vfy_x", tenant_id: "tnt_a", distance: 1 }], shared: true }),
    });
    expect(copied.signals.reverse_search).toMatchObject({ found_online: false, match_count: 1, sources: ["service_history", "shared_history"] });
    // A configured web search that errs leaves it not assessed (asked for and not done)…
    const erring = await analyzeImage(input(encodeJpeg(naturalScene(256, 192, 5)), "image/jpeg"), { ...deps, web: { name: "web", search: async () => ({ error: "HTTP 503" }) } });
    expect(erring.signals.reverse_search).toEqual({ status: "not_assessed", reason: "web_search_error" });
    // …and one that answers adds the web to the sources; found_online only for a web match.
    const clean = await analyzeImage(input(encodeJpeg(naturalScene(256, 192, 5)), "image/jpeg"), { ...deps, web: { name: "web", search: async () => ({ found: false, count: 0, evidence: [] }) } });
    expect(clean.signals.reverse_search).toMatchObject({ found_online: false, match_count: 0, sources: ["service_history", "web"], provider: "internal-phash+web" });
    const online = await analyzeImage(input(encodeJpeg(naturalScene(256, 192, 5)), "image/jpeg"), { ...deps, web: { name: "web", search: async () => ({ found: true, count: 2, evidence: [] }) } });
    expect(online.signals.reverse_search).toMatchObject({ found_online: true, match_count: 2, sources: ["service_history", "web"] });
  });

  it("an image too small for the moiré tiles is not assessed for screens", async () => {
    const result = await analyzeImage(input(encodeJpeg(naturalScene(48, 40, 6)), "image/jpeg"), deps);
    expect(result.dimensions).toEqual({ width: 48, height: 40 });
    expect(result.signals.screen_detection).toEqual({ status: "not_assessed", reason: "image_too_small" });
  });

  it("uploaded content: verdict signals not applicable, the offline measurements still kept for the case analysis", async () => {
    const png = encodePngRgb(naturalScene(64, 48, 4), { parameters: "x\nSteps: 20, Sampler: Euler" });
    const result = await analyzeImage(input(png, "image/png", { uploaded: true }), deps);
    expect(result.signals.ai_detection).toEqual({ status: "not_applicable", reason: "uploaded_content" });
    expect(result.observed.ai_detection.label).toBe("likely_ai");
    expect(result.phash?.hash).toMatch(/^[0-9a-f]{16}$/);
  });

  it("the web search and the vision judge are sent one bounded JPEG of the decoded pixels, never the original", async () => {
    // A 1600×1200 photo: the original sent whole (base64 in JSON) took a 9.6 MB 50 MP photo's
    // analysis from 62 to 155 MB in workerd, and one over 10 MB was not searched at all.
    const original = encodeJpeg(naturalScene(1600, 1200, 9), 95);
    const sent: Array<{ to: string; bytes: Uint8Array; type: string }> = [];
    const result = await analyzeImage(input(original, "image/jpeg", { required: ["screen", "reverse", "context"], context: { kind: "vehicle", summary: "A car" } }), {
      ...deps,
      web: {
        name: "web",
        search: async (bytes, type) => {
          sent.push({ to: "web", bytes, type });
          return { found: false, count: 0, evidence: [] };
        },
      },
      vision: {
        name: "vision",
        judge: async (request) => {
          sent.push({ to: "vision", bytes: request.image, type: "image/jpeg" });
          return { provider: "vision", model: "m", prompt_version: "p", context: { status: "match", confidence: 0.9, reasons: [] }, object: null, condition: null };
        },
      },
    });
    expect(result.signals.reverse_search).toMatchObject({ provider: "internal-phash+web" });
    expect(sent.map((s) => [s.to, s.type])).toEqual([
      ["web", "image/jpeg"],
      ["vision", "image/jpeg"],
    ]);
    // The same bytes for both (encoded once): a JPEG of at most 1024 px a side (here 1000×750, from
    // libjpeg's 5/8-scale decode), a fraction of the original.
    // (Compared as facts: a failing comparison of the arrays themselves makes vitest diff megabytes.)
    expect({ same: sent[1]!.bytes === sent[0]!.bytes, original: sent[0]!.bytes === original }).toEqual({ same: true, original: false });
    const copy = decodeRgb(sent[0]!.bytes, "image/jpeg");
    expect({ longest: Math.max(copy.width, copy.height), aspect: copy.width / copy.height }).toEqual({ longest: 1000, aspect: 4 / 3 });
    expect(sent[0]!.bytes.length).toBeLessThan(original.length / 4);
  });
});

/** A scripted detection provider that records what it was sent. */
function scriptedProvider(outcome: AiProviderOutcome, maxBytes = 10 * 1024 * 1024): AiDetectionProvider & { sent: Array<{ bytes: Uint8Array; type: string }> } {
  const sent: Array<{ bytes: Uint8Array; type: string }> = [];
  return {
    name: "scripted",
    accepts: { mediaTypes: ["image/jpeg", "image/png", "image/webp"], maxBytes },
    sent,
    detect: async (bytes, type) => {
      sent.push({ bytes, type });
      return outcome;
    },
  };
}
/** A stand-in for the shipped pixel detector (written elsewhere): it sees the decoded image and scores it. */
const pixelDetector = (score: number, seen: DecodedImage[] = []) => (image: DecodedImage): AiResult => {
  seen.push(image);
  return { label: score >= 0.5 ? "likely_ai" : "unknown", confidence: score, method: "pixels", provider: "offline-pixels", method_version: "ai-pixels/test", evidence: [{ code: "pixel_score", value: score }] };
};

describe("ai_detection in one capture's analysis", () => {
  const photo = () => encodeJpeg(naturalScene(256, 192, 7));

  it("the pixel detector plugged in through ImageDeps.aiPixels sees the decoded image and decides, for the verdict and the case analysis alike", async () => {
    const seen: DecodedImage[] = [];
    const result = await analyzeImage(input(photo(), "image/jpeg", { required: ["ai"] }), { ...deps, aiPixels: pixelDetector(0.83, seen) });
    expect(seen.map((image) => [image.width, image.height])).toEqual([[256, 192]]);
    expect(result.signals.ai_detection).toMatchObject({ label: "likely_ai", confidence: 0.83, method: "pixels" });
    expect(result.observed.ai_detection).toEqual(result.signals.ai_detection);
    expect(result.timings_ms).toHaveProperty("ai_pixels");
    // Without it, provenance alone (what this branch ships).
    expect((await analyzeImage(input(photo(), "image/jpeg", { required: ["ai"] }), deps)).signals.ai_detection).toMatchObject({ label: "unknown", method: "provenance" });
  });

  it("a configured provider is sent the original with its metadata stripped (coded data unchanged) and decides", async () => {
    const original = encodeJpeg(naturalScene(1600, 1200, 9), 95, exifTiff({ make: "Canon", model: "EOS R5", gps: { lat: 48.8566, lng: 2.3522 } }));
    const provider = scriptedProvider({ score: 0.91, evidence: [] });
    const result = await analyzeImage(input(original, "image/jpeg", { required: ["ai"] }), { ...deps, aiPixels: pixelDetector(0.1), aiProvider: provider });
    expect(result.signals.ai_detection).toMatchObject({ label: "likely_ai", confidence: 0.91, method: "provider:scripted" });
    expect(codes(result.signals.ai_detection)).toContain("ai_provider_input");
    // The case analysis reads only what ran inside the service.
    expect(result.observed.ai_detection).toMatchObject({ label: "unknown", method: "pixels" });
    expect(provider.sent.map((s) => s.type)).toEqual(["image/jpeg"]);
    const sent = provider.sent[0]!.bytes;
    const copy = decodeRgb(sent, "image/jpeg");
    expect([copy.width, copy.height]).toEqual([1600, 1200]);
    expect(Buffer.from(sent).includes(Buffer.from("Exif"))).toBe(false);
    expect(Buffer.from(sent.subarray(-4096)).equals(Buffer.from(original.subarray(-4096)))).toBe(true);
  });

  it("an original over the provider's limit is sent as the bounded JPEG of the decoded pixels, and the evidence says so", async () => {
    const original = encodeJpeg(naturalScene(1600, 1200, 9), 95);
    const provider = scriptedProvider({ score: 0.91, evidence: [] }, 50_000);
    const result = await analyzeImage(input(original, "image/jpeg", { required: ["ai"] }), { ...deps, aiProvider: provider });
    const copy = decodeRgb(provider.sent[0]!.bytes, "image/jpeg");
    expect(Math.max(copy.width, copy.height)).toBe(1000);
    expect((result.signals.ai_detection as { evidence: Array<{ code: string; value?: unknown }> }).evidence.find((e) => e.code === "ai_provider_input")?.value).toBe("reencoded_jpeg");
  });

  it("the provider is not asked when a provenance marker decides, for uploaded content, or when ai is not required", async () => {
    const provider = scriptedProvider({ score: 0.02, evidence: [] });
    const marked = encodeJpeg(naturalScene(256, 192, 7), 90, exifTiff({ userComment: "x\nSteps: 30, Sampler: DPM++ 2M, Seed: 4" }));
    expect((await analyzeImage(input(marked, "image/jpeg", { required: ["ai"] }), { ...deps, aiProvider: provider })).signals.ai_detection).toMatchObject({ label: "likely_ai", method: "provenance" });
    await analyzeImage(input(photo(), "image/jpeg", { required: ["ai"], uploaded: true }), { ...deps, aiProvider: provider });
    await analyzeImage(input(photo(), "image/jpeg", { required: ["screen", "reverse"] }), { ...deps, aiProvider: provider });
    expect(provider.sent).toHaveLength(0);
  });

  it("a provider that fails leaves ai_detection not assessed with its words in the notes, unless the pixels tripped", async () => {
    const failing = scriptedProvider({ error: "HTTP 429: usage_limit: Daily usage limit reached" });
    const result = await analyzeImage(input(photo(), "image/jpeg", { required: ["ai"] }), { ...deps, aiPixels: pixelDetector(0.1), aiProvider: failing });
    expect(result.signals.ai_detection).toMatchObject({ status: "not_assessed", reason: "ai_provider_error" });
    expect(result.notes).toEqual([{ code: "ai_provider_error", signal: "ai_detection", detail: "scripted: HTTP 429: usage_limit: Daily usage limit reached" }]);
    const tripped = await analyzeImage(input(photo(), "image/jpeg", { required: ["ai"] }), { ...deps, aiPixels: pixelDetector(0.83), aiProvider: failing });
    expect(tripped.signals.ai_detection).toMatchObject({ label: "likely_ai", method: "pixels" });
    expect(codes(tripped.signals.ai_detection)).toContain("ai_provider_error");
  });

  it("an image too large to decode has no pixels to send: with a provider configured, ai_detection is not assessed for that reason", async () => {
    const provider = scriptedProvider({ score: 0.02, evidence: [] });
    const result = await analyzeImage(input(jpegBomb(65_000, 65_000), "image/jpeg", { required: ["ai"] }), { ...deps, aiProvider: provider });
    expect(result.signals.ai_detection).toMatchObject({ status: "not_assessed", reason: "image_too_large" });
    expect(provider.sent).toHaveLength(0);
    // Without a provider the metadata still speaks for it, as before.
    expect((await analyzeImage(input(jpegBomb(65_000, 65_000), "image/jpeg", { required: ["ai"] }), deps)).signals.ai_detection).toMatchObject({ label: "unknown", method: "provenance" });
  });
});
