import { describe, expect, it } from "vitest";
import { analysesOf } from "../../src/db/analyses";
import type { CaptureAnalysisResult } from "../../src/analysis/analyze-image";
import { createVerification, db, seedTenant } from "../helpers/api";
import { jpegBomb, pngBomb } from "../helpers/bombs";
import { captureInline, hasVerdict, pollVerification } from "../helpers/capture";
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
