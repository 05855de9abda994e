import type { DecodedImage } from "../decoders";
import { clamp01, round2, type AiResult, type Evidence, type NotAssessed } from "../evidence";
import { FAIL_CONFIDENCE } from "../verdict";

/*
 * How `ai_detection` is decided from what looked at the image: its provenance metadata (always), a
 * pixel detector (when one ran: a reserved hook, none ships, ImageDeps.aiPixels) and a configured
 * detection provider (when one is configured and was asked). The rule and why are in
 * docs/signals.md ("Which method decides").
 */

/** Bumped when the provider's threshold or the way its answer is read changes. */
export const AI_PROVIDER_VERSION = "ai-provider/1";

/** A commercial AI-generated-image detector behind a small interface (src/providers/ai-detection.ts). */
export interface AiDetectionProvider {
  /** Lowercase, e.g. `sightengine`: the method reads `provider:<name>`. */
  readonly name: string;
  /**
   * What it takes as documented: the original (metadata stripped) is sent when its format is listed
   * and it fits; otherwise the analysis's bounded JPEG re-encode (signals/ai-provider-input.ts).
   */
  readonly accepts: { mediaTypes: readonly string[]; maxBytes: number };
  detect(image: Uint8Array, mediaType: string): Promise<AiProviderOutcome>;
}

/** `score`: the provider's probability that the image is generated (0..1); anything else is an error. */
export type AiProviderOutcome = { score: number; evidence: Evidence[] } | { error: string };

/** The reserved hook for a pixel detector (ImageDeps.aiPixels): none ships, so none runs in production. */
export type AiPixelDetector = (image: DecodedImage) => AiResult;

/**
 * A provider score at or above this reads `likely_ai`, with the score as confidence: the midpoint of
 * a probability. Between it and FAIL_CONFIDENCE (0.6) a verdict is `suspicious`, not `failed`, so a
 * borderline score alone never fails a verification.
 */
export const PROVIDER_AI_THRESHOLD = 0.5;
/**
 * The pixel detector tripped and the provider, asked about the same pixels, scored them below its
 * threshold: the trip stands (the providers miss whole generator families too) but at most
 * `suspicious`: two detectors disagreeing is a reason to look, not a finding of fraud.
 */
export const DISPUTED_CONFIDENCE = FAIL_CONFIDENCE - 0.05;

/** A configured provider that did not answer, with what the other methods saw. */
export interface AiNotAssessed extends NotAssessed {
  reason: "ai_provider_error";
  provider: string;
  method_version: string;
  evidence: Evidence[];
}

export interface AiInputs {
  provenance: AiResult;
  /** The pixel detector's result, or null when it did not run. */
  pixels: AiResult | null;
  /** The provider's answer, or null when none is configured or it was not asked. */
  provider: { name: string; outcome: AiProviderOutcome } | null;
}

/** A generator marker or a trusted capture manifest decides on its own: no provider needs asking. */
export function provenanceDecides(provenance: AiResult): boolean {
  return provenance.label !== "unknown";
}

/** The result of the methods that run inside the service (the case analysis reads it for every capture). */
export function offlineAi(provenance: AiResult, pixels: AiResult | null): AiResult {
  if (provenanceDecides(provenance) || !pixels) return withContext(provenance, pixels ? [pixels] : []);
  return withContext(pixels, [provenance]);
}

/**
 * The capture's `ai_detection`:
 * 1. a provenance marker (generator, or a trusted C2PA capture) decides;
 * 2. otherwise a provider that answered decides (`likely_ai` at or above PROVIDER_AI_THRESHOLD),
 *    except that a pixel trip it disagrees with stands, capped at DISPUTED_CONFIDENCE;
 * 3. a provider that failed leaves a pixel trip standing (noted); with no trip the signal is
 *    `not_assessed` (`ai_provider_error`), never clean;
 * 4. with no provider, the pixel detector decides when it ran, else provenance (`unknown`).
 */
export function combineAiDetection({ provenance, pixels, provider }: AiInputs): AiResult | AiNotAssessed {
  if (!provider || provenanceDecides(provenance)) return offlineAi(provenance, pixels);
  const offline = offlineAi(provenance, pixels);
  const pixelTrip = pixels?.label === "likely_ai" ? pixels : null;
  const { name, outcome } = provider;
  if ("error" in outcome) {
    const failed: Evidence = { code: "ai_provider_error", detail: `${name}: ${outcome.error}`.slice(0, 200) };
    if (pixelTrip) return withContext({ ...pixelTrip, evidence: [...pixelTrip.evidence, failed] }, [provenance]);
    return { status: "not_assessed", reason: "ai_provider_error", provider: name, method_version: AI_PROVIDER_VERSION, evidence: [failed, ...offline.evidence] };
  }
  const score = round2(clamp01(outcome.score));
  const scored: Evidence[] = [{ code: "ai_provider_score", value: score, detail: name }, ...outcome.evidence];
  const decided: AiResult = {
    label: score >= PROVIDER_AI_THRESHOLD ? "likely_ai" : "unknown",
    // A clean provider score is not turned into support for authenticity (it is uncalibrated on this
    // service's photos): a non-trip keeps the confidence the offline methods had.
    confidence: score >= PROVIDER_AI_THRESHOLD ? score : offline.confidence,
    method: `provider:${name}`,
    provider: name,
    method_version: AI_PROVIDER_VERSION,
    evidence: scored,
  };
  if (decided.label === "unknown" && pixelTrip) {
    const disputed: Evidence = { code: "ai_detectors_disagree", value: score, detail: `${name} scored ${score} (below ${PROVIDER_AI_THRESHOLD})` };
    return withContext({ ...pixelTrip, confidence: Math.min(pixelTrip.confidence, DISPUTED_CONFIDENCE), evidence: [...pixelTrip.evidence, disputed, ...scored] }, [provenance]);
  }
  return withContext(decided, pixels ? [pixels, provenance] : [provenance]);
}

/**
 * Why no provider is asked although the deployment configures some: the tenant's
 * `ai_detection_provider` (providers/ai-detection.ts #decideAiProvider) chose `none`, or chose a
 * provider this deployment does not configure (any more).
 */
export type AiProviderWithheld = { why: "tenant_chose_none" } | { why: "tenant_choice_not_configured"; provider: string };

/**
 * `ai_detection` when the tenant's choice withholds the provider. `none` is a privacy choice:
 * provenance decides (as without a provider) and the evidence says the tenant chose no provider. A
 * chosen provider that is not configured is no reason to ask another (the tenant chose where its
 * images go) nor to read clean: it fails closed like a provider that failed (`ai_provider_error`),
 * unless provenance decides, in which case no provider would have been asked.
 */
export function aiWithheld(withheld: AiProviderWithheld, provenance: AiResult, pixels: AiResult | null): AiResult | AiNotAssessed {
  if (withheld.why === "tenant_choice_not_configured") {
    const error = "not configured in this deployment; this tenant chose it (ai_detection_provider), so no other provider was asked";
    return combineAiDetection({ provenance, pixels, provider: { name: withheld.provider, outcome: { error } } });
  }
  const offline = offlineAi(provenance, pixels);
  const optedOut: Evidence = { code: "ai_provider_opted_out", detail: "this tenant chose no detection provider (ai_detection_provider: none): the image was sent to none" };
  return { ...offline, evidence: [...offline.evidence, optedOut] };
}

/** The deciding result, its evidence first, then what the other methods saw (a reviewer sees all of it). */
function withContext(decided: AiResult, others: AiResult[]): AiResult {
  return { ...decided, evidence: [...decided.evidence, ...others.flatMap((o) => o.evidence)] };
}
