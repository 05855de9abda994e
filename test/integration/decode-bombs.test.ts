import { describe, expect, it } from "vitest";
import { analysesOf } from "../../src/db/analyses";
import type { CaptureAnalysisResult } from "../../src/analysis/analyze-image";
import { createVerification, db, seedTenant } from "../helpers/api";
import { depthBomb, jpegBomb, pngBomb } from "../helpers/bombs";
import { captureInline, hasVerdict, pollVerification, uploadDepthMap } from "../helpers/capture";
import { encodeDepthPng, encodeJpeg, naturalScene } from "../helpers/synth";
import { samplePhoto } from "../helpers/photos";

// Issue 26, as the attacker ran it against `npm start`: four inline captures of ~100-byte images whose
// headers claim enormous frames, then one genuine photo in another verification. Through the real
// capture route, events queue, analysis queue and analysis Worker: each bomb's verdict fails closed
// (its pixel signals not assessed, with the reason), and the genuine photo gets its verdict. Before
// the header check the genuine photo had none after 109 s (the PNG frame builder walked 2^31 rows
// first), and a PNG of 2^31-1 x 1 ended the local workerd.
describe("decompression bombs captured through the API", () => {
  it("each bomb is not assessed with its reason within the analysis; a genuine photo queued behind them gets its verdict", async () => {
    const t = await seedTenant();
    const bombs = [
      { bytes: pngBomb(1, 2_147_483_647), reason: "image_too_large" },
      { bytes: pngBomb(2_147_483_647, 1), reason: "image_too_large" },
      { bytes: pngBomb(100_000, 100_000), reason: "image_too_large" },
      { bytes: jpegBomb(65_000, 65_000), reason: "image_too_large" },
    ];
    const ids: string[] = [];
    for (const bomb of bombs) {
      const v = await createVerification(t.key, { max_captures: 1, signals_required: ["screen", "ai"] });
      await captureInline(v.id, bomb.bytes);
      ids.push(v.id);
    }
    const genuine = await createVerification(t.key, { max_captures: 1, signals_required: ["screen", "ai"] });
    await captureInline(genuine.id, await samplePhoto("dune.jpg"));

    const settled = await pollVerification(t.key, genuine.id, hasVerdict, 60_000);
    expect(settled.verdict.signals.screen_detection).toMatchObject({ screen_detected: false, confidence: expect.any(Number) });
    for (const [i, id] of ids.entries()) {
      const v = await pollVerification(t.key, id, hasVerdict, 60_000);
      expect({ bomb: i, status: v.status, screen: v.verdict?.signals.screen_detection }).toEqual({
        bomb: i,
        status: "completed",
        screen: { status: "not_assessed", reason: bombs[i]!.reason },
      });
      expect(v.verdict).toMatchObject({ label: "suspicious", reason_code: "not_assessed", not_assessed: ["screen_detection"] });
      // The capture's analysis says why, and spent milliseconds on the pixels (a liveness bound).
      const [analysis] = await analysesOf(db(), id);
      const result = analysis!.result as CaptureAnalysisResult;
      expect(result.notes[0]).toMatchObject({ code: bombs[i]!.reason, detail: expect.stringMatching(/side over|ceiling/) });
      expect(result.timings_ms.decode).toBeLessThan(100);
    }
  }, 120_000);
});

// Issue 33, from outside: the crafted depth map (a 16-bit grey PNG claiming 8192 × 8192, about
// 130 KB that inflate to 128 MiB) uploaded as a forensic buffer and captured through the capture
// API, in the same verification as a genuine capture with its genuine map. Before, the analysis
// Worker inflated it whole (an isolate's 128 MB on Cloudflare: the batch failed on every retry,
// other tenants' jobs in it included); now the photos' header check refuses it in milliseconds.
describe("a depth-map bomb captured through the API", () => {
  it("its depth is not assessed, with the header's reason, within milliseconds; the verification gets its verdict and the genuine map its depth", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, {
      steps: [{ key: "photos", type: "image", description: "The car", min: 2, max: 2 }],
      signals_required: ["screen", "depth"],
      capture_channel: "api",
    });
    const bomb = await uploadDepthMap(v.id, depthBomb(8_192, 8_192));
    const genuine = await uploadDepthMap(v.id, encodeDepthPng(160, 120, (x, y) => 900 + y * 2 - Math.max(0, 35 - Math.hypot(x - 80, y - 60)) * 9));
    await captureInline(v.id, encodeJpeg(naturalScene(256, 192, 331), 90), { forensic_buffer_key: bomb });
    await captureInline(v.id, encodeJpeg(naturalScene(256, 192, 332), 90), { forensic_buffer_key: genuine });

    const done = await pollVerification(t.key, v.id, hasVerdict, 60_000);
    expect(done.status).toBe("completed");
    expect(done.verdict).toMatchObject({ label: "suspicious", reason_code: "not_assessed", not_assessed: ["depth"] });
    const results = (await analysesOf(db(), v.id)).map((a) => a.result as CaptureAnalysisResult);
    const refused = results.find((r) => r.observed.depth.source === "unavailable")!;
    expect(refused.signals.depth).toEqual({ status: "not_assessed", reason: "depth_map_unreadable" });
    expect(refused.observed.depth.evidence).toEqual([{ code: "depth_map_unreadable", detail: expect.stringMatching(/^image_too_large: PNG frame of 8192x8192 .*over the 50 MP ceiling/) }]);
    expect(refused.timings_ms.depth).toBeLessThan(100);
    const read = results.find((r) => r !== refused)!;
    expect(read.signals.depth).toMatchObject({ source: "forensic_buffer", anomaly: false });
  }, 120_000);
});
