import { env } from "cloudflare:workers";
import { analyzeImage, type CaptureAnalysisResult } from "../../src/analysis/analyze-image";
import type { AiDetectionProvider } from "../../src/analysis/signals/ai-combine";
import type { AiResult } from "../../src/analysis/evidence";
import type { RecordedRequest } from "../fakes/recorded";

/* What the detection-provider tests share: a capture's analysis with one provider, and the fakes' request logs. */

export const noMarker: AiResult = {
  label: "unknown",
  confidence: 0.1,
  method: "provenance",
  provider: "offline-provenance",
  method_version: "ai-provenance/1",
  evidence: [{ code: "no_generator_marker", value: 0 }],
};

/** The requests a provider fake received with `key` (test/fakes/recorded.ts). */
export async function requestsTo(fake: "hive" | "reality-defender", key: string): Promise<RecordedRequest[]> {
  const res = await fetch(`${env.FAKES_URL}/${fake}/_requests/${encodeURIComponent(key)}`);
  return (await res.json()) as RecordedRequest[];
}

export { sha256Hex } from "../../src/lib/crypto";

/** One live capture requiring `ai`, analysed with `aiProvider` as the only provider. */
export function analyseWith(aiProvider: AiDetectionProvider, bytes: Uint8Array, mediaType: string): Promise<CaptureAnalysisResult> {
  return analyzeImage(
    { captureId: "cap_1", tenantId: "tnt_a", bytes, mediaType, uploaded: false, depthPng: null, location: null, clientCapturedAt: null, required: ["ai"], channel: "api", captureIntegrity: null },
    { searchHistory: async () => ({ matches: [], shared: false }), vision: null, web: null, trustedSigners: [], aiProvider },
  );
}

/**
 * A provider whose headers come in time and whose body never does: the caller's abort errors the
 * body mid-read, as a budget spent while the body streams does (.ci/run of 2026-12-04).
 */
export const bodyCutOffByAbort: typeof fetch = async (_input, init) =>
  new Response(
    new ReadableStream({
      start(controller) {
        init?.signal?.addEventListener("abort", () => controller.error(new SyntaxError("cut off")));
      },
    }),
    { status: 200, headers: { "content-type": "application/json" } },
  );
