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

export type AiLabel = "likely_human" | "likely_ai" | "unknown";
export type MatchStatus = "match" | "mismatch" | "inconclusive";

export interface ScreenResult extends Provenance {
  screen_detected: boolean;
  confidence: number;
}
export interface AiResult extends Provenance {
  label: AiLabel;
  confidence: number;
}
export interface ReverseResult extends Provenance {
  found_online: boolean;
  match_count: number;
  /** Other verifications' captures this image nearly duplicates (the internal index). */
  matches?: Array<{ capture_id: string; verification_id: string; distance: number }>;
}
export interface DepthResult extends Provenance {
  /** Where depth came from: `forensic_buffer` (client depth map) or `unavailable`. */
  source: string;
  /** Confidence that the depth map shows a three-dimensional scene (0 when there is no depth). */
  confidence: number;
  /** A flat scene: the shape of a screen or a print held to the camera. */
  anomaly: boolean;
}
export interface ContextResult extends Provenance {
  status: MatchStatus;
  confidence: number;
}

/** Signals of the verdict, keyed by their wire names. */
export interface VerdictSignals {
  screen_detection?: ScreenResult | NotApplicable;
  ai_detection?: AiResult | NotApplicable;
  reverse_search?: ReverseResult | NotApplicable;
  depth?: DepthResult | NotApplicable;
  context_match?: ContextResult | NotApplicable;
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
