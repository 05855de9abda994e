import { describe, expect, it } from "vitest";
import { createVerification, db, seedTenant } from "../helpers/api";
import { captureByKey, captureInline, hasVerdict, pollVerification } from "../helpers/capture";
import { preparedPhoto } from "../helpers/photos";
import { analysesOf } from "../../src/db/analyses";

// Real photographs through the real queue consumer. The large inputs are made from a Debian
// package's camera photo on first use (scripts/real-photos.ts): allow for that.
const PREPARE_MS = 240_000;

async function analysisOf(verificationId: string): Promise<any> {
  const rows = await analysesOf(db(), verificationId);
  expect(rows).toHaveLength(1);
  return rows[0]!.result;
}

/** One prepared real photo captured by key reference into a fresh verification, analysed to a complete verdict. */
async function assessPrepared(name: string, mediaType: string): Promise<{ verdict: any; result: any }> {
  const bytes = await preparedPhoto(name);
  const t = await seedTenant();
  const v = await createVerification(t.key, { max_captures: 1, signals_required: ["screen", "ai"] });
  await captureByKey(v.id, bytes, mediaType);
  const done = await pollVerification(t.key, v.id, hasVerdict, 90_000);
  expect(done.verdict).toMatchObject({ assessment: "complete", not_assessed: [] });
  return { verdict: done.verdict, result: await analysisOf(v.id) };
}

/** The capture's pixels were decoded at full size and every pixel signal ran on them. */
function expectPixelsAssessed(result: any, width: number, height: number): void {
  expect(result.dimensions).toEqual({ width, height });
  expect(result.decode_error).toBeNull();
  expect(result.phash.hash).toMatch(/^[0-9a-f]{16}$/);
  // The moiré detector read its native-resolution tiles (it reports them per tile).
  expect(result.signals.screen_detection.evidence.map((e: { code: string }) => e.code)).toContain("no_grid_peaks");
  // Nothing required went unassessed (depth and reverse search were not asked for).
  expect(result.notes).toEqual([]);
}

describe("photos people send, decoded in the Worker", () => {
  it(
    "a 50 MP JPEG (8160×6120, a phone's largest) is uploaded and every pixel signal is assessed",
    async () => {
      const { verdict, result } = await assessPrepared("jpeg-50mp.jpg", "image/jpeg");
      expect(typeof verdict.signals.screen_detection.screen_detected).toBe("boolean");
      expectPixelsAssessed(result, 8160, 6120);
    },
    PREPARE_MS,
  );

  it(
    "a 50 MP progressive JPEG (over libjpeg's coefficient budget) is assessed from its DC values and tile blocks",
    async () => {
      const { verdict, result } = await assessPrepared("jpeg-50mp-progressive.jpg", "image/jpeg");
      expect(typeof verdict.signals.screen_detection.screen_detected).toBe("boolean");
      expectPixelsAssessed(result, 8160, 6120);
    },
    PREPARE_MS,
  );

  it(
    "a 50 MP lossy WebP (8160×6120) is assessed: libwebp decodes it scaled and cropped, never whole",
    async () => {
      const { result } = await assessPrepared("webp-50mp.webp", "image/webp");
      expect(result.media_type).toBe("image/webp");
      expectPixelsAssessed(result, 8160, 6120);
    },
    PREPARE_MS,
  );

  it(
    "a 12 MP lossless WebP (4000×3000, 15.8 MiB) is assessed: libwebp decodes it through a bounded window, never whole",
    async () => {
      const { result } = await assessPrepared("webp-12mp-lossless.webp", "image/webp");
      expect(result.media_type).toBe("image/webp");
      expectPixelsAssessed(result, 4000, 3000);
    },
    PREPARE_MS,
  );

  it(
    "an iPhone-style grid HEIC (4032×3024 in 512 px HEVC tiles) gets assessed signals",
    async () => {
      const { result } = await assessPrepared("heic-12mp.heic", "image/heic");
      expect(result.media_type).toBe("image/heic");
      expect(result.dimensions).toEqual({ width: 4032, height: 3024 });
      expect(result.signals.screen_detection).toMatchObject({ provider: "offline-moire", screen_detected: expect.any(Boolean) });
      expect(result.phash.hash).toMatch(/^[0-9a-f]{16}$/);
    },
    PREPARE_MS,
  );

  it("a file that is no image at all is not evidence: every signal not assessed (metadata-based ai included), and the verification fails", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, { max_captures: 1, signals_required: ["screen", "ai"] });
    // A WebP header over bytes that are no VP8 stream: the type sniffs, the pixels do not decode.
    const broken = new Uint8Array(400);
    broken.set(Uint8Array.from("RIFF\x88\x01\x00\x00WEBPVP8 \x7c\x01\x00\x00", (c) => c.charCodeAt(0)));
    for (let i = 20; i < broken.length; i += 1) broken[i] = (i * 37) & 255;
    await captureInline(v.id, broken);
    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done).toMatchObject({ status: "failed", failure_reason: expect.stringMatching(/^unreadable_evidence: /) });
    expect(done.verdict).toBeUndefined();
    const result = await analysisOf(v.id);
    expect(result.signals).toMatchObject({ screen_detection: { status: "not_assessed", reason: "undecodable_image" }, ai_detection: { status: "not_assessed", reason: "undecodable_image" } });
    expect(result.notes).toEqual(expect.arrayContaining([expect.objectContaining({ code: "undecodable_image" }), { code: "undecodable_image", signal: "screen_detection" }]));
  });
});
