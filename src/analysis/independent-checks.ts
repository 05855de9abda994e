import type { MatchStatus } from "./evidence";

/*
 * The independent checks (spec: they never affect verdict.label): object match and condition,
 * aggregated over the captures a vision provider judged. Location lives in signals/location.ts.
 */

export interface CaptureObjectJudgement {
  status: MatchStatus;
  confidence: number;
}

export interface AspectJudgement {
  name: string;
  /** 0..10, or null when the provider could not see or judge it. */
  score: number | null;
  reasoning: string;
}

export interface ObjectMatch {
  status: MatchStatus;
  expected_object: string;
}

/** Any capture showing the object is a match; all judged captures contradicting it is a mismatch. */
export function aggregateObjectMatch(expected: string, judgements: Array<CaptureObjectJudgement | null>): ObjectMatch {
  const judged = judgements.filter((j): j is CaptureObjectJudgement => j !== null && j.status !== "inconclusive");
  let status: MatchStatus = "inconclusive";
  if (judged.some((j) => j.status === "match")) status = "match";
  else if (judged.length > 0 && judged.length === judgements.length) status = "mismatch";
  return { status, expected_object: expected };
}

export type ConditionLabel = "good" | "fair" | "poor";

export type Condition =
  | {
      score: number;
      label: ConditionLabel;
      aspects: Array<{ name: string; score: number; reasoning: string }>;
      /** Aspects no capture could score: listed, never dropped (and left out of the average). */
      not_assessed?: Array<{ name: string; reasoning: string }>;
    }
  | { status: "not_assessed"; reason: string; aspects: Array<{ name: string; reasoning: string }> };

/** Spec cut-offs: good ≥ 7.5, fair ≥ 5, otherwise poor. */
export function conditionLabel(score: number): ConditionLabel {
  if (score >= 7.5) return "good";
  if (score >= 5) return "fair";
  return "poor";
}

/**
 * Per aspect: the mean of the scores the provider gave across captures. The condition score is the
 * one-decimal average of the scored aspects. Aspects no capture could score are left out of the
 * average and listed in `not_assessed` with why; with none scored the condition is `not_assessed`,
 * never an invented number.
 */
export function aggregateCondition(aspects: string[], perCapture: Array<AspectJudgement[] | null>, unassessedReason: string): Condition {
  const scored: Array<{ name: string; score: number; reasoning: string }> = [];
  const unscored: Array<{ name: string; reasoning: string }> = [];
  for (const name of aspects) {
    const judgements = perCapture.flatMap((list) => (list ?? []).filter((a) => a.name === name));
    const scores = judgements.map((j) => j.score).filter((s): s is number => s !== null);
    if (scores.length === 0) {
      unscored.push({ name, reasoning: judgements[0]?.reasoning || unassessedReason });
      continue;
    }
    const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
    const reasons = judgements.filter((j) => j.score !== null).map((j) => j.reasoning).filter(Boolean);
    scored.push({ name, score: Math.round(mean * 10) / 10, reasoning: (reasons.join(" ") || `Scored from ${scores.length} capture(s).`).slice(0, 500) });
  }
  if (scored.length === 0) return { status: "not_assessed", reason: unassessedReason, aspects: unscored };
  const score = Math.round((scored.reduce((a, b) => a + b.score, 0) / scored.length) * 10) / 10;
  return { score, label: conditionLabel(score), aspects: scored, ...(unscored.length > 0 ? { not_assessed: unscored } : {}) };
}
