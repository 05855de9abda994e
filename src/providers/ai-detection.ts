import { z } from "zod";
import type { AiDetectionProvider, AiProviderOutcome } from "../analysis/signals/ai-combine";
import { ORIGINAL_MAX_BYTES, PROVIDER_MEDIA_TYPES, fileName, postForJson } from "./ai-detection-common";
import { hiveAiGenerated } from "./ai-detection-hive";
import { realityDefender } from "./ai-detection-reality-defender";

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
 * original file with its metadata stripped (JPEG, PNG or WebP up to ORIGINAL_MAX_BYTES; no size limit
 * is stated on the pages read), else the analysis's bounded JPEG re-encode
 * (analysis/signals/ai-provider-input.ts).
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

export function sightengineGenAi(options: { apiUser: string; apiSecret: string; url?: string; fetcher?: typeof fetch; timeoutMs?: number; maxBytes?: number }): AiDetectionProvider {
  const doFetch = options.fetcher ?? fetch;
  const endpoint = `${(options.url ?? SIGHTENGINE_URL).replace(/\/+$/, "")}/1.0/check.json`;
  return {
    name: "sightengine",
    accepts: { mediaTypes: PROVIDER_MEDIA_TYPES, maxBytes: options.maxBytes ?? ORIGINAL_MAX_BYTES },
    async detect(image, mediaType) {
      const form = new FormData();
      form.set("media", new Blob([image], { type: mediaType }), fileName(mediaType));
      form.set("models", "genai");
      form.set("api_user", options.apiUser);
      form.set("api_secret", options.apiSecret);
      const answer = await postForJson(doFetch, endpoint, { body: form }, options.timeoutMs ?? TIMEOUT_MS);
      return "status" in answer ? readAnswer(answer.status, answer.body) : answer;
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

/** The detection providers a deployment can configure, in the order one is chosen when several are. */
export const AI_DETECTION_PROVIDERS = ["sightengine", "hive", "reality-defender"] as const;
export type AiDetectionProviderName = (typeof AI_DETECTION_PROVIDERS)[number];

/** Each provider from its secrets (all of them, or it is not configured); URLs are for tests. */
function fromEnv(env: Env): Partial<Record<AiDetectionProviderName, () => AiDetectionProvider>> {
  return {
    ...(env.SIGHTENGINE_API_USER && env.SIGHTENGINE_API_SECRET
      ? { sightengine: () => sightengineGenAi({ apiUser: env.SIGHTENGINE_API_USER!, apiSecret: env.SIGHTENGINE_API_SECRET!, ...(env.SIGHTENGINE_URL ? { url: env.SIGHTENGINE_URL } : {}) }) }
      : {}),
    ...(env.HIVE_API_KEY ? { hive: () => hiveAiGenerated({ apiKey: env.HIVE_API_KEY!, ...(env.HIVE_URL ? { url: env.HIVE_URL } : {}) }) } : {}),
    ...(env.REALITY_DEFENDER_API_KEY
      ? { "reality-defender": () => realityDefender({ apiKey: env.REALITY_DEFENDER_API_KEY!, ...(env.REALITY_DEFENDER_URL ? { url: env.REALITY_DEFENDER_URL } : {}) }) }
      : {}),
  };
}

/** The configured detection providers, in AI_DETECTION_PROVIDERS order. */
export function configuredAiProviders(env: Env): AiDetectionProviderName[] {
  const configured = fromEnv(env);
  return AI_DETECTION_PROVIDERS.filter((name) => configured[name]);
}

/**
 * The one provider the analysis asks, or none: AI_DETECTION_PROVIDER names it; unset, the first
 * configured one (AI_DETECTION_PROVIDERS order). One is asked per capture, never several (their
 * scores are on different scales and none is calibrated here). AI_DETECTION_PROVIDER naming a
 * provider that is not configured runs none, and the capabilities say why.
 */
export function aiDetectionProvider(env: Env): AiDetectionProvider | null {
  const configured = fromEnv(env);
  const chosen = env.AI_DETECTION_PROVIDER?.trim();
  if (chosen) return (AI_DETECTION_PROVIDERS as readonly string[]).includes(chosen) ? (configured[chosen as AiDetectionProviderName]?.() ?? null) : null;
  const first = AI_DETECTION_PROVIDERS.find((name) => configured[name]);
  return first ? configured[first]!() : null;
}
