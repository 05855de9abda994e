import { z } from "zod";
import type { AiDetectionProvider, AiProviderOutcome, AiProviderWithheld } from "../analysis/signals/ai-combine";
import { ORIGINAL_MAX_BYTES, PROVIDER_MEDIA_TYPES, fileName, postForJson } from "./ai-detection-common";
import { hiveAiGenerated } from "./ai-detection-hive";
import { realityDefender } from "./ai-detection-reality-defender";
import { AI_DETECTION_PROVIDERS, type AiDetectionProviderName } from "../schemas/ai-providers";

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

/** Which provider a tenant's captures are sent to, and why (or why none is). */
export type AiProviderDecision =
  | { ask: AiDetectionProviderName; by: "tenant" | "deployment" }
  /** `tenant_chose_none`: the tenant's privacy choice; the others: the deployment asks none (provenance decides). */
  | { ask: null; why: "tenant_chose_none" | "none_configured" | "deployment_choice_not_configured" }
  /** The tenant chose a provider this deployment does not configure (removed since): fails closed, no other is asked. */
  | { ask: null; why: "tenant_choice_not_configured"; chosen: string };

/**
 * The one provider asked about a tenant's captures, or none. The tenant's setting decides when it
 * names one: `none` asks none, a provider's name asks that one, and only if it is configured (never
 * another in its place). Null leaves it to the deployment: AI_DETECTION_PROVIDER names it; unset,
 * the first configured one (AI_DETECTION_PROVIDERS order); naming one that is not configured asks
 * none (the capabilities say why). One is asked per capture, never several (their scores are on
 * different scales and none is calibrated here).
 */
export function decideAiProvider(setting: string | null, configured: readonly AiDetectionProviderName[], deploymentChoice?: string): AiProviderDecision {
  if (setting === "none") return { ask: null, why: "tenant_chose_none" };
  if (setting !== null) {
    const chosen = configured.find((name) => name === setting);
    return chosen ? { ask: chosen, by: "tenant" } : { ask: null, why: "tenant_choice_not_configured", chosen: setting };
  }
  const named = deploymentChoice?.trim();
  if (named) {
    const chosen = configured.find((name) => name === named);
    return chosen ? { ask: chosen, by: "deployment" } : { ask: null, why: "deployment_choice_not_configured" };
  }
  return configured[0] ? { ask: configured[0], by: "deployment" } : { ask: null, why: "none_configured" };
}

/** `decideAiProvider` for this deployment's configuration. */
export function aiProviderDecision(env: Env, setting: string | null = null): AiProviderDecision {
  return decideAiProvider(setting, configuredAiProviders(env), env.AI_DETECTION_PROVIDER);
}

/** What the analysis is given for a tenant: the decision, the provider it asks (built from its secrets), or what withholds one. */
export interface TenantAiProvider {
  decision: AiProviderDecision;
  provider: AiDetectionProvider | null;
  /** The tenant's choice, not the deployment, leaves the provider out (the evidence says so). */
  withheld: AiProviderWithheld | null;
}

export function aiProviderFor(env: Env, setting: string | null = null): TenantAiProvider {
  const configured = fromEnv(env);
  const decision = decideAiProvider(setting, AI_DETECTION_PROVIDERS.filter((name) => configured[name]), env.AI_DETECTION_PROVIDER);
  return { decision, provider: decision.ask ? configured[decision.ask]!() : null, withheld: withheldBy(decision) };
}

function withheldBy(decision: AiProviderDecision): AiProviderWithheld | null {
  if (decision.ask) return null;
  if (decision.why === "tenant_chose_none") return { why: "tenant_chose_none" };
  if (decision.why === "tenant_choice_not_configured") return { why: "tenant_choice_not_configured", provider: decision.chosen };
  return null;
}

/** The provider asked for `setting` (null: the deployment's choice), or none. */
export function aiDetectionProvider(env: Env, setting: string | null = null): AiDetectionProvider | null {
  return aiProviderFor(env, setting).provider;
}
