import { z } from "zod";
import type { AiDetectionProvider, AiProviderOutcome } from "../analysis/signals/ai-combine";

/*
 * Sightengine's AI-generated image detection (model `genai`), as documented:
 * - https://sightengine.com/docs/ai-generated-image-detection: `check.json` with `models=genai`,
 *   `api_user`, `api_secret`, and the image as a `url` or uploaded raw (`media`); the model "works by
 *   analyzing the visual (pixel) content of the image. No meta-data is used"; the answer's
 *   `type.ai_generated` is the score (0..1, higher = more likely generated).
 * - https://sightengine.com/docs/reference: endpoint `https://api.sightengine.com/1.0`, the two
 *   authentication parameters on every request, JSON on every answer (errors included), and "make sure
 *   that your code does not break if new properties are added": unknown fields are ignored here.
 * - https://sightengine.com/docs/api-error-codes-and-responses: 4xx/5xx with
 *   `{status: "failure", request: {id, timestamp, operations}, error: {type, code, message}}`.
 * We POST multipart (credentials in the body, never in a URL that could be logged) and send the
 * analysis's bounded JPEG of the decoded pixels, never the original file.
 */

const TIMEOUT_MS = 10_000;
export const SIGHTENGINE_URL = "https://api.sightengine.com";

const Success = z.object({
  status: z.literal("success"),
  request: z.object({ id: z.string().max(200) }).partial().optional(),
  type: z.object({ ai_generated: z.number().min(0).max(1) }),
});
const Failure = z.object({
  status: z.literal("failure"),
  error: z.object({ type: z.string().max(100), message: z.string().max(500) }).partial(),
});

export function sightengineGenAi(options: { apiUser: string; apiSecret: string; url?: string; fetcher?: typeof fetch; timeoutMs?: number }): AiDetectionProvider {
  const doFetch = options.fetcher ?? fetch;
  const endpoint = `${(options.url ?? SIGHTENGINE_URL).replace(/\/+$/, "")}/1.0/check.json`;
  return {
    name: "sightengine",
    async detect(image, mediaType) {
      const form = new FormData();
      form.set("media", new Blob([image], { type: mediaType }), mediaType === "image/jpeg" ? "capture.jpg" : "capture");
      form.set("models", "genai");
      form.set("api_user", options.apiUser);
      form.set("api_secret", options.apiSecret);
      let res: Response;
      try {
        res = await doFetch(endpoint, { method: "POST", body: form, signal: AbortSignal.timeout(options.timeoutMs ?? TIMEOUT_MS) });
      } catch (err) {
        return { error: err instanceof Error && err.name === "TimeoutError" ? "timeout" : String(err).slice(0, 200) };
      }
      let body: unknown;
      try {
        body = await res.json();
      } catch {
        return { error: `HTTP ${res.status}: the answer is not JSON` };
      }
      return readAnswer(res.status, body);
    },
  };
}

/** A documented success with a score, or an error naming what went wrong (never a score made up). */
function readAnswer(status: number, body: unknown): AiProviderOutcome {
  const failure = Failure.safeParse(body);
  if (failure.success) return { error: `HTTP ${status}: ${[failure.data.error.type, failure.data.error.message].filter(Boolean).join(": ") || "failure"}` };
  if (status < 200 || status > 299) return { error: `HTTP ${status}` };
  const success = Success.safeParse(body);
  if (!success.success) return { error: "malformed answer: no type.ai_generated score in 0..1" };
  const requestId = success.data.request?.id;
  return { score: success.data.type.ai_generated, evidence: requestId ? [{ code: "ai_provider_request", detail: requestId }] : [] };
}

/** The configured AI-detection provider, or none (SIGHTENGINE_API_USER and SIGHTENGINE_API_SECRET, both). */
export function aiDetectionProvider(env: Env): AiDetectionProvider | null {
  if (!env.SIGHTENGINE_API_USER || !env.SIGHTENGINE_API_SECRET) return null;
  return sightengineGenAi({ apiUser: env.SIGHTENGINE_API_USER, apiSecret: env.SIGHTENGINE_API_SECRET, ...(env.SIGHTENGINE_URL ? { url: env.SIGHTENGINE_URL } : {}) });
}
