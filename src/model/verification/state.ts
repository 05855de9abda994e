import type { VerificationStatus } from "../../db/schema";
import type { VerificationConfig } from "./config";

export type { VerificationStatus };

export interface CaptureRef {
  id: string;
  stepKey: string;
  imageKey: string;
}

export interface AnswerValue {
  value: string;
  answeredAt: number;
  /** How many different values the step has been given, this one included. */
  revisions: number;
}

/** What the state machine needs to know about a verification: loaded from D1 before each decision. */
export interface VerificationState {
  id: string;
  tenantId: string;
  status: VerificationStatus;
  version: number;
  config: VerificationConfig;
  sealEnabled: boolean;
  createdAt: number;
  expiresAt: number;
  submittedAt: number | null;
  readyAt: number | null;
  completedAt: number | null;
  finalizedAt: number | null;
  /** Set by redaction: the evidence is erased and nothing can be added any more. */
  redactedAt: number | null;
  /** How many times the end user left it unfinished (`kind: abandoned`). */
  abandonments: number;
  captures: CaptureRef[];
  answers: Record<string, AnswerValue>;
}

/**
 * The answer to step `key`, if it has one. Step keys are the tenant's words: `toString`, `constructor`
 * or `__proto__` name a step as well as any other, so only the record's own entries count (outside
 * probe of 2026-12-06: `answers.toString` found Object.prototype's and read the step as answered).
 */
export function answerTo(answers: Record<string, AnswerValue>, key: string): AnswerValue | undefined {
  return Object.hasOwn(answers, key) ? answers[key] : undefined;
}

export const TERMINAL_STATUSES: readonly VerificationStatus[] = ["completed", "expired", "failed"];

export function isTerminal(status: VerificationStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/**
 * The status a reader should see. A verification whose `expires_at` passed is expired even before its
 * alarm has written that down, unless its evidence was already complete (then only analysis remains).
 */
export function effectiveStatus(
  state: Pick<VerificationState, "status" | "expiresAt" | "readyAt">,
  now: number,
): VerificationStatus {
  if (!isTerminal(state.status) && state.readyAt === null && now >= state.expiresAt) return "expired";
  return state.status;
}

export function capturesInStep(state: Pick<VerificationState, "captures">, stepKey: string): number {
  let n = 0;
  for (const c of state.captures) if (c.stepKey === stepKey) n += 1;
  return n;
}
