/*
 * The vocabulary every signal speaks. A signal result says what it concluded (the spec's evaluated
 * shape), who concluded it (provider + method version) and what it saw (evidence codes), so a
 * reviewer can tell a strong positive from an absence of evidence. Documented in docs/signals.md.
 */

/** One observation behind a signal's conclusion: a stable code, plus what was measured. */
export interface Evidence {
  code: string;
  detail?: string;
  value?: number | string | boolean;
}

export interface Provenance {
  /** Which implementation produced the result, e.g. `offline-provenance` or `workers-ai`. */
  provider: string;
  /** Bumped whenever thresholds or the method change, so stored results stay interpretable. */
  method_version: string;
  evidence: Evidence[];
}

export interface NotApplicable {
  status: "not_applicable";
  reason: "uploaded_content";
}

export const NOT_APPLICABLE: NotApplicable = { status: "not_applicable", reason: "uploaded_content" };

/**
 * Why a required signal could not be assessed. A signal that did not run never reads as clean: the
 * verdict lists it in `not_assessed` and the label cannot be `verified` (docs/signals.md).
 */
export const NOT_ASSESSED_REASONS = [
  /** The pixels could not be decoded (corrupt, truncated, or a codec that refused the stream). */
  "undecodable_image",
  /** The image is beyond what a Worker can decode within its memory (docs/signals.md, measured limits). */
  "image_too_large",
  /** Too few pixels to measure (the moiré tiles need 64 px). */
  "image_too_small",
  /** Too little texture to fingerprint (a blank wall, a sheet of paper): not compared with other images. */
  "low_texture",
  /**
   * Reverse search before the service's own history assessed it on its own: no web search was
   * configured. Never written since; kept so verdicts stored before read as they were written.
   */
  "web_search_not_configured",
  /** The web search provider answered with an error or timed out. */
  "web_search_error",
  /** No vision provider is configured (AI binding or VISION_API_URL). */
  "vision_not_configured",
  /** The vision provider answered with an error, a timeout or an invalid judgement. */
  "vision_error",
  /**
   * A configured AI-detection provider answered with an error, a malformed answer or a timeout, and
   * nothing else found generator traces: the detector the deployment says it runs did not run.
   */
  "ai_provider_error",
  /** No depth map came with the capture. */
  "no_depth_map",
  /** The depth map could not be parsed. */
  "depth_map_unreadable",
  /**
   * A live capture of a hosted-page verification came without the capture page's capture-integrity
   * record (a script posting to the capture endpoint, or the camera-app fallback): never assumed live.
   */
  "no_capture_integrity",
  /** The record's burst held too few frames, or too short a time, to measure (a stalled camera). */
  "capture_burst_incomplete",
  /** The record carried the page's own measures (version 1), not the frames: a claim, never read for the signal. */
  "no_burst_frames",
  /** The burst's strips could not be read back as the capture recorded them. */
  "burst_unreadable",
  /** The burst's nonce was not issued by this service for this verification (or its key was rotated since). */
  "burst_nonce_invalid",
  /** The burst's nonce was issued more than 30 minutes before the capture arrived. */
  "burst_nonce_expired",
  /** No frame of the burst is at the shutter, or the photo is too plain, so the photo cannot be compared with it. */
  "burst_photo_unmatched",
  /** No two consecutive native patches of the burst align (they moved further apart than the search reaches, or show different things), so no noise can be measured. */
  "burst_patches_unaligned",
] as const;
export type NotAssessedReason = (typeof NOT_ASSESSED_REASONS)[number];

export interface NotAssessed {
  status: "not_assessed";
  reason: NotAssessedReason;
}

export function notAssessed(reason: NotAssessedReason): NotAssessed {
  return { status: "not_assessed", reason };
}

export function isNotAssessed(value: unknown): value is NotAssessed {
  return typeof value === "object" && value !== null && (value as { status?: unknown }).status === "not_assessed";
}

/** Why something in a capture's analysis is missing or degraded, for a reviewer ("not assessed: why"). */
export interface AnalysisNote {
  code: string;
  /** The verdict signal this note explains, when it explains one. */
  signal?: keyof VerdictSignals;
  detail?: string;
}

export type AiLabel = "likely_human" | "likely_ai" | "unknown";
export type MatchStatus = "match" | "mismatch" | "inconclusive";

export interface ScreenResult extends Provenance {
  screen_detected: boolean;
  confidence: number;
}
/**
 * What decided an `ai_detection`: its provenance metadata or a configured detection provider
 * (`provider:sightengine`); `pixels` is reserved for a detector on the decoded pixels, which does not
 * ship (schemas/ai-methods.ts says which methods run).
 */
export type AiMethod = "pixels" | "provenance" | `provider:${string}`;
export const AI_METHOD_PATTERN = /^(pixels|provenance|provider:[a-z0-9-]+)$/;

export interface AiResult extends Provenance {
  label: AiLabel;
  confidence: number;
  method: AiMethod;
}

/**
 * The method of a stored `ai_detection`. Results stored before `method` existed were all decided
 * from provenance metadata (`offline-provenance`, the only implementation then).
 */
export function aiMethodOf(stored: { method?: unknown; provider?: unknown }): AiMethod {
  if (typeof stored.method === "string" && AI_METHOD_PATTERN.test(stored.method)) return stored.method as AiMethod;
  return stored.provider === "offline-pixels" ? "pixels" : "provenance";
}
/**
 * Where a reverse search looked: the tenant's own verifications (`service_history`), those of the
 * tenants sharing a reuse index with it (`shared_history`, opt-in), the web (`web`).
 */
export const REVERSE_SOURCES = ["service_history", "shared_history", "web"] as const;
export type ReverseSource = (typeof REVERSE_SOURCES)[number];

export interface ReverseResult extends Provenance {
  /** True only for a match the web search found. */
  found_online: boolean;
  match_count: number;
  /** What was searched, in REVERSE_SOURCES order. */
  sources: ReverseSource[];
  /** How many other verifications' captures this image nearly duplicates (the service's history); absent on results stored before it was counted apart (then `matches` is all of them). */
  history_count?: number;
  /** The closest of them (at most `LISTED_MATCHES`). */
  matches?: Array<{ capture_id: string; verification_id: string; distance: number }>;
}
export interface DepthResult extends Provenance {
  /**
   * Where depth came from: `forensic_buffer` (the API channel's client depth map), `capture_burst`
   * (the hosted page's capture-integrity record) or `unavailable`.
   */
  source: string;
  /**
   * Confidence that the depth map shows a three-dimensional scene (0 when there is no depth); for
   * `capture_burst`, that the frames came from a camera over a real scene.
   */
  confidence: number;
  /** A flat scene (a screen or a print held to the camera), or for `capture_burst` frames no camera over a real scene gives. */
  anomaly: boolean;
  /** What decided it, for certificates, where the provider alone does not say (`capture_burst_flat_scene`: it passed as one moving plane). */
  method?: string;
}
export interface ContextResult extends Provenance {
  status: MatchStatus;
  confidence: number;
}

/** Signals of the verdict, keyed by their wire names. */
export interface VerdictSignals {
  screen_detection?: ScreenResult | NotApplicable | NotAssessed;
  ai_detection?: AiResult | NotApplicable | NotAssessed;
  reverse_search?: ReverseResult | NotApplicable | NotAssessed;
  depth?: DepthResult | NotApplicable | NotAssessed;
  context_match?: ContextResult | NotApplicable | NotAssessed;
}

/** `verdict.assessment`: how much of what the verification requires was evaluated. */
export type Assessment = "complete" | "partial" | "none";

/** `complete` when everything evaluated could be, `partial` when some could not, `none` when nothing was evaluated. */
export function assessmentOf(evaluated: number, missing: number): Assessment {
  if (evaluated === 0) return "none";
  return missing > 0 ? "partial" : "complete";
}

export function isNotApplicable(value: unknown): value is NotApplicable {
  return typeof value === "object" && value !== null && (value as { status?: unknown }).status === "not_applicable";
}

export function clamp01(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.min(1, Math.max(0, value));
}

/** Confidence values travel with two decimals: more would suggest a precision the methods lack. */
export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
