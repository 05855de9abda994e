import type { SignalName } from "../schemas/verification-create";
import {
  aiMethodOf,
  assessmentOf,
  NOT_APPLICABLE,
  REVERSE_SOURCES,
  isNotApplicable,
  isNotAssessed,
  notAssessed,
  round2,
  type AiResult,
  type Assessment,
  type ContextResult,
  type DepthResult,
  type NotAssessed,
  type ReverseResult,
  type ScreenResult,
  type VerdictSignals,
} from "./evidence";

export const VERDICT_VERSION = "verdict/1";

/** `signals_required` entry → the verdict's signal key. */
export const SIGNAL_KEYS = {
  screen: "screen_detection",
  ai: "ai_detection",
  reverse: "reverse_search",
  context: "context_match",
  depth: "depth",
} as const satisfies Record<SignalName, keyof VerdictSignals>;

/**
 * The spec's reason codes plus `not_assessed` (an extension, CONTRACT.md "Extensions"): a required
 * signal could not be assessed and nothing else tripped.
 */
export type ReasonCode = "screen_detected" | "ai_generated" | "context_mismatch" | "reverse_search_match" | "depth_anomaly" | "not_assessed";
/** The spec's priority when several signals trip. */
export const REASON_PRIORITY: readonly ReasonCode[] = ["screen_detected", "ai_generated", "context_mismatch", "reverse_search_match", "depth_anomaly"];

/** A tripped signal at or above this confidence fails the verification; below it, suspicious. */
export const FAIL_CONFIDENCE = 0.6;
/** A depth map whose 3-D confidence is below this (with a depth source) is an anomaly. */
export const DEPTH_ANOMALY_BELOW = 0.25;

/** What one capture contributed: its signals (evaluated or not applicable). */
export interface CaptureSignals {
  capture_id: string;
  uploaded: boolean;
  signals: VerdictSignals;
}

/** The wire verdict: spec shapes only (provider detail stays in the per-capture analyses). */
export interface Verdict {
  label: "verified" | "suspicious" | "failed";
  score: number;
  signals: Record<string, unknown>;
  reason_code?: ReasonCode;
  /**
   * `complete`: every required signal was evaluated on the live captures; `partial`: some were and
   * some could not be; `none`: nothing was evaluated (every signal not applicable, as for uploads
   * or audit mode, none required, or none could be assessed).
   */
  assessment: Assessment;
  /** The `signals` keys that could not be assessed (on at least one live capture). */
  not_assessed: string[];
}

interface Trip {
  reason: ReasonCode;
  confidence: number;
}

/**
 * No live capture is an image any decoder can read (every signal of every one `undecodable_image`):
 * nothing can be evaluated, and nothing evaluated is never a verdict (CONTRACT), so the verification
 * ends `failed`, the contract's own example ("analysis could not produce a verdict ... e.g.
 * unreadable evidence"), instead of a `suspicious` verdict about no photograph at all.
 */
export function unreadableEvidence(captures: readonly CaptureSignals[]): boolean {
  const live = captures.filter((c) => !c.uploaded);
  return (
    live.length > 0 &&
    live.every((c) => {
      const values = Object.values(c.signals);
      return values.length > 0 && values.every((v) => isNotAssessed(v) && v.reason === "undecodable_image");
    })
  );
}

/**
 * Aggregates per-capture signals into the verification's verdict. Each required signal is combined
 * over the live captures (uploads and audit content are `not_applicable` and never fail anything);
 * a signal with no live capture is `not_applicable`.
 *
 * Fail closed: a signal that could not be assessed on some live capture is `not_assessed` (unless
 * another capture tripped it, which stands), is listed in `not_assessed`, and keeps the label from
 * `verified`: without a trip the verdict is `suspicious` with `reason_code: "not_assessed"`. The
 * verified score averages only the signals that ran.
 */
export function aggregateVerdict(required: readonly SignalName[], captures: CaptureSignals[]): Verdict {
  const live = captures.filter((c) => !c.uploaded);
  const signals: Record<string, unknown> = {};
  const trips: Trip[] = [];
  const support: number[] = [];
  const missing: string[] = [];
  let evaluated = 0;
  for (const name of required) {
    const key = SIGNAL_KEYS[name];
    const values = live.map((c) => c.signals[key]).filter((v) => v !== undefined && !isNotApplicable(v));
    if (values.length === 0) {
      signals[key] = NOT_APPLICABLE;
      continue;
    }
    const unassessed = values.filter((v): v is NotAssessed => isNotAssessed(v));
    const assessed = values.filter((v) => !isNotAssessed(v));
    const combined = assessed.length > 0 ? combine(name, assessed as never[]) : null;
    if (combined) evaluated += 1;
    if (unassessed.length > 0) missing.push(key);
    if (combined?.trip) {
      signals[key] = combined.wire;
      trips.push(combined.trip);
    } else if (unassessed.length > 0) {
      signals[key] = notAssessed(unassessed[0]!.reason);
    } else if (combined) {
      signals[key] = combined.wire;
      support.push(combined.support);
    }
  }
  const assessment = { assessment: assessmentOf(evaluated, missing.length), not_assessed: missing };
  if (trips.length > 0) {
    trips.sort((a, b) => REASON_PRIORITY.indexOf(a.reason) - REASON_PRIORITY.indexOf(b.reason));
    const strongest = Math.max(...trips.map((t) => t.confidence));
    return {
      label: strongest >= FAIL_CONFIDENCE ? "failed" : "suspicious",
      score: round2(strongest),
      signals,
      reason_code: trips[0]!.reason,
      ...assessment,
    };
  }
  // Nothing tripped but something was not looked at: never verified. No fraud was measured, so the
  // score (confidence in the finding) is 0.
  if (missing.length > 0) return { label: "suspicious", score: 0, signals, reason_code: "not_assessed", ...assessment };
  // Verified: the score is the mean support of the evaluated signals (0 when nothing was evaluated).
  const score = support.length > 0 ? support.reduce((a, b) => a + b, 0) / support.length : 0;
  return { label: "verified", score: round2(score), signals, ...assessment };
}

interface Combined {
  wire: Record<string, unknown>;
  trip?: Trip;
  /** How much a clean signal supports authenticity (its confidence in the clean label). */
  support: number;
}

function combine(name: SignalName, values: never[]): Combined {
  switch (name) {
    case "screen":
      return combineScreen(values as ScreenResult[]);
    case "ai":
      return combineAi(values as AiResult[]);
    case "reverse":
      return combineReverse(values as ReverseResult[]);
    case "context":
      return combineContext(values as ContextResult[]);
    case "depth":
      return combineDepth(values as DepthResult[]);
  }
}

function combineScreen(values: ScreenResult[]): Combined {
  const detected = values.filter((v) => v.screen_detected);
  if (detected.length > 0) {
    const confidence = Math.max(...detected.map((v) => v.confidence));
    return { wire: { screen_detected: true, confidence }, trip: { reason: "screen_detected", confidence }, support: 0 };
  }
  const confidence = Math.min(...values.map((v) => v.confidence));
  return { wire: { screen_detected: false, confidence }, support: confidence };
}

/**
 * The combined value carries the method (and the evidence codes and values, without free text) of the
 * capture it came from: the strongest `likely_ai`, else the least confident capture.
 */
function combineAi(values: AiResult[]): Combined {
  const carried = (v: AiResult) => ({ method: aiMethodOf(v), evidence: (v.evidence ?? []).map(({ code, value }) => ({ code, ...(value !== undefined ? { value } : {}) })) });
  const ai = values.filter((v) => v.label === "likely_ai");
  if (ai.length > 0) {
    const strongest = ai.reduce((a, b) => (b.confidence > a.confidence ? b : a));
    const confidence = strongest.confidence;
    return { wire: { label: "likely_ai", confidence, ...carried(strongest) }, trip: { reason: "ai_generated", confidence }, support: 0 };
  }
  if (values.every((v) => v.label === "likely_human")) {
    const weakest = values.reduce((a, b) => (b.confidence < a.confidence ? b : a));
    return { wire: { label: "likely_human", confidence: weakest.confidence, ...carried(weakest) }, support: weakest.confidence };
  }
  const unknown = values.filter((v) => v.label === "unknown").reduce((a, b) => (b.confidence < a.confidence ? b : a));
  return { wire: { label: "unknown", confidence: unknown.confidence, ...carried(unknown) }, support: unknown.confidence };
}

function combineReverse(values: ReverseResult[]): Combined {
  const found = values.some((v) => v.found_online);
  const matched = new Set<string>();
  let closest = Infinity;
  for (const v of values) {
    for (const m of v.matches ?? []) {
      matched.add(m.capture_id);
      closest = Math.min(closest, m.distance);
    }
  }
  // Internal matches: distinct captures across this verification's images, as far as each lists them
  // (the closest few); a capture that counted more than it lists makes that count the floor. Web hits
  // are only counted by their provider.
  const historyCount = (v: ReverseResult) => v.history_count ?? v.matches?.length ?? 0;
  const webCount = values.reduce((sum, v) => sum + Math.max(0, v.match_count - historyCount(v)), 0);
  const matchCount = Math.max(matched.size, ...values.map(historyCount)) + webCount;
  // What every live capture was searched in (results stored before `sources` existed count as the history).
  const sources = REVERSE_SOURCES.filter((s) => values.every((v) => (v.sources ?? ["service_history"]).includes(s)));
  const wire = { found_online: found, match_count: matchCount, sources };
  if (found || matchCount > 0) {
    // Found on the web: the photo was published before this capture, so it fails. Found in the
    // service's history: a reason to look (the earlier capture may be the same person's), so it stays
    // suspicious: an exact or near-exact copy (≤ 3 of 64 bits) more strongly than a looser match.
    const confidence = found ? WEB_MATCH_CONFIDENCE : closest <= 3 ? HISTORY_COPY_CONFIDENCE : HISTORY_NEAR_CONFIDENCE;
    return { wire, trip: { reason: "reverse_search_match", confidence }, support: 0 };
  }
  return { wire, support: sources.includes("web") ? WEB_SEARCH_CLEAN_SUPPORT : HISTORY_CLEAN_SUPPORT };
}

/** A web match: the photo existed online before the capture. */
export const WEB_MATCH_CONFIDENCE = 0.8;
/** A copy in the service's history (≤ 3 bits): strong, but below FAIL_CONFIDENCE. */
export const HISTORY_COPY_CONFIDENCE = 0.55;
/** A looser match in the service's history. */
export const HISTORY_NEAR_CONFIDENCE = 0.4;
/** How far a clean web reverse search supports authenticity: it only knows the indexed web. */
const WEB_SEARCH_CLEAN_SUPPORT = 0.8;
/** How far "not seen in this service's own history" supports authenticity: it only knows this service's images. */
const HISTORY_CLEAN_SUPPORT = 0.5;

function combineContext(values: ContextResult[]): Combined {
  const mismatches = values.filter((v) => v.status === "mismatch");
  if (mismatches.length > 0) {
    const confidence = Math.max(...mismatches.map((v) => v.confidence));
    return { wire: { status: "mismatch", confidence }, trip: { reason: "context_mismatch", confidence }, support: 0 };
  }
  if (values.every((v) => v.status === "match")) {
    const confidence = Math.min(...values.map((v) => v.confidence));
    return { wire: { status: "match", confidence }, support: confidence };
  }
  return { wire: { status: "inconclusive", confidence: 0 }, support: 0 };
}

function combineDepth(values: DepthResult[]): Combined {
  const measured = values.filter((v) => v.source !== "unavailable");
  if (measured.length === 0) return { wire: { source: "unavailable", confidence: 0 }, support: 0 };
  const worst = measured.reduce((a, b) => (b.confidence < a.confidence ? b : a));
  const wire = { source: worst.source, confidence: worst.confidence };
  if (worst.anomaly || worst.confidence < DEPTH_ANOMALY_BELOW) {
    // Depth is client-supplied and phone depth is often estimated: on its own it only makes a
    // verification suspicious, never failed (capped below FAIL_CONFIDENCE).
    return { wire, trip: { reason: "depth_anomaly", confidence: Math.min(FAIL_CONFIDENCE - 0.05, 1 - worst.confidence) }, support: 0 };
  }
  return { wire, support: worst.confidence };
}
