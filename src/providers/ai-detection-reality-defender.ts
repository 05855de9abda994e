import { z } from "zod";
import type { AiDetectionProvider, AiProviderOutcome } from "../analysis/signals/ai-combine";
import { ORIGINAL_MAX_BYTES, PROVIDER_MEDIA_TYPES, fileName, postFailure } from "./ai-detection-common";

/*
 * Reality Defender's detection API, as documented (asynchronous: upload, then poll):
 * - https://docs.realitydefender.com/api-reference/endpoint/presigned: `POST
 *   https://api.prd.realitydefender.xyz/api/files/aws-presigned` with header `x-api-key` and JSON
 *   `{fileName}` (extension included); images .jpg .jpeg .png .gif .webp "up to 10MB". The answer
 *   (as the official SDKs read it: github.com/Reality-Defender/realitydefender-sdk-typescript
 *   src/types/api.ts, -python detection/upload.py) is `{code, errno, response: {signedUrl}, mediaId,
 *   requestId}`; the file is then PUT to `signedUrl` (a pre-signed storage URL: the API key is not
 *   sent there).
 * - https://docs.realitydefender.com/api-reference/endpoint/get_media_detail: `GET
 *   /api/media/users/{requestId}` with `x-api-key` answers `{requestId, mediaType, resultsSummary:
 *   {status, metadata: {finalScore}}, models}`; `status` is AUTHENTIC, FAKE, SUSPICIOUS,
 *   NOT_APPLICABLE or UNABLE_TO_EVALUATE (the SDKs poll while it is ANALYZING or the summary is
 *   null, and read FAKE as MANIPULATED), `finalScore` "goes from 0-100" (higher = more likely
 *   manipulated or generated; read here as score / 100). NOT_APPLICABLE is returned for images with
 *   "no faces detected/faces too small" (its face models do not apply), UNABLE_TO_EVALUATE "if an
 *   error occurred while processing the file": both are errors here, never a score, and so is a
 *   summary without a finalScore (the vendor's metadata analysis decided alone).
 * - Errors (the SDKs' handling): 400 with `{code, response}` (`free-tier-not-allowed`,
 *   `upload-limit-reached`, an invalid request), 401 an invalid key, 404 an unknown request id (the
 *   Python SDK keeps polling on it: a result not yet written), other statuses server errors.
 * Bounded: the whole exchange (presign, upload, every poll) runs within BUDGET_MS, polling every
 * POLL_MS; a result still ANALYZING at the end is an error (`timeout`), never a score. The analysis
 * runs in a queue consumer, where waiting costs no CPU time.
 */

export const REALITY_DEFENDER_URL = "https://api.prd.realitydefender.xyz";
const BUDGET_MS = 30_000;
const POLL_MS = 2_000;

const Presigned = z.object({
  response: z.object({ signedUrl: z.string().url().max(4096) }),
  requestId: z.string().min(1).max(200),
  mediaId: z.string().max(200).optional(),
});
const Failure = z.object({ code: z.string().max(200).optional(), response: z.string().max(500).optional() });
const Media = z.object({
  requestId: z.string().max(200).optional(),
  resultsSummary: z
    .object({
      status: z.string().max(50),
      metadata: z.object({ finalScore: z.number().nullish(), reasons: z.array(z.object({ code: z.string().max(100).optional(), message: z.string().max(300).optional() })).max(20).optional() }).partial().nullish(),
    })
    .nullish(),
});

const SCORED = new Set(["AUTHENTIC", "FAKE", "MANIPULATED", "SUSPICIOUS"]);

class Failed extends Error {}

export function realityDefender(options: { apiKey: string; url?: string; fetcher?: typeof fetch; budgetMs?: number; pollMs?: number; maxBytes?: number }): AiDetectionProvider {
  const doFetch = options.fetcher ?? fetch;
  const base = (options.url ?? REALITY_DEFENDER_URL).replace(/\/+$/, "");
  const budgetMs = options.budgetMs ?? BUDGET_MS;
  const pollMs = options.pollMs ?? POLL_MS;
  return {
    name: "reality-defender",
    accepts: { mediaTypes: PROVIDER_MEDIA_TYPES, maxBytes: options.maxBytes ?? ORIGINAL_MAX_BYTES },
    async detect(image, mediaType) {
      const deadline = Date.now() + budgetMs;
      const timedOut = { error: `timeout: no result within ${Math.round(budgetMs / 1000)} s` };
      const left = () => deadline - Date.now();
      const call = async (url: string, init: RequestInit): Promise<Response> => {
        if (left() <= 0) throw new DOMException("budget spent", "TimeoutError");
        return doFetch(url, { ...init, signal: AbortSignal.timeout(left()) });
      };
      try {
        const presign = await call(`${base}/api/files/aws-presigned`, {
          method: "POST",
          headers: { "x-api-key": options.apiKey, "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify({ fileName: fileName(mediaType) }),
        });
        const presigned = await json(presign);
        if (!presign.ok) throw new Failed(failureText(presign, presigned));
        const signed = Presigned.safeParse(presigned);
        if (!signed.success) throw new Failed("malformed answer: no signedUrl and requestId");
        const upload = await call(signed.data.response.signedUrl, { method: "PUT", headers: { "content-type": mediaType }, body: image });
        if (!upload.ok) throw new Failed(`upload: HTTP ${upload.status}`);
        for (;;) {
          const res = await call(`${base}/api/media/users/${encodeURIComponent(signed.data.requestId)}`, { method: "GET", headers: { "x-api-key": options.apiKey, accept: "application/json" } });
          const body = await json(res);
          if (res.ok || res.status === 404) {
            const outcome = res.ok ? readMedia(body, signed.data.requestId) : null;
            if (outcome) return outcome;
          } else {
            throw new Failed(failureText(res, body));
          }
          if (left() <= pollMs) return timedOut;
          await new Promise((resolve) => setTimeout(resolve, pollMs));
        }
      } catch (err) {
        if (err instanceof Failed) return { error: err.message };
        // A body cut off by the budget's abort reads as no JSON: it is the timeout (seen in .ci/run).
        if (err instanceof NotJson) return left() <= 0 ? timedOut : { error: err.message };
        // The budget ran out during the presign, the upload or a poll: the same answer as after the last poll.
        if (err instanceof Error && err.name === "TimeoutError") return timedOut;
        return postFailure(err);
      }
    },
  };
}

class NotJson extends Error {}

async function json(res: Response): Promise<unknown> {
  try {
    return await res.json();
  } catch {
    throw new NotJson(`HTTP ${res.status}: the answer is not JSON`);
  }
}

function failureText(res: Response, body: unknown): string {
  const failure = Failure.safeParse(body);
  const words = failure.success ? [failure.data.code, failure.data.response].filter(Boolean).join(": ") : "";
  return `HTTP ${res.status}${words ? `: ${words}` : ""}`;
}

/** A finished result (a score or an error), or null while it is still being analysed. */
function readMedia(body: unknown, requestId: string): AiProviderOutcome | null {
  const media = Media.safeParse(body);
  if (!media.success) return { error: "malformed answer: no resultsSummary" };
  const summary = media.data.resultsSummary;
  if (!summary || summary.status === "ANALYZING") return null;
  const evidence = [{ code: "ai_provider_request", detail: `${requestId} (${summary.status})` }];
  if (!SCORED.has(summary.status)) {
    const reasons = (summary.metadata?.reasons ?? []).map((r) => r.message ?? r.code).filter(Boolean).join("; ");
    return { error: `${summary.status}${reasons ? `: ${reasons}` : ""}` };
  }
  const finalScore = summary.metadata?.finalScore;
  if (typeof finalScore !== "number" || !(finalScore >= 0 && finalScore <= 100)) return { error: `malformed answer: ${summary.status} without a finalScore in 0..100` };
  return { score: finalScore / 100, evidence };
}
