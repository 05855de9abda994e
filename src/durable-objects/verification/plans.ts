import { answers, captures } from "../../db/schema";
import { insertRow } from "../../db/statements";
import { recordUploadDigest } from "../../db/uploads";
import { errorResult } from "../../lib/errors";
import { captureRow, type CaptureInput } from "../../model/verification/capture";
import { caseAnalysisCovers } from "../../model/verification/case-coverage";
import { computeSealHash } from "../../model/verification/seal";
import * as machine from "../../model/verification/transitions";
import type { ProgressKind, ReviewCommand } from "../../model/verification/transitions";
import { noChange, type Decide } from "./commit";

/*
 * Each command of the verification's object as a `Decide`: the model's decision
 * (model/verification/transitions.ts) and what the commit writes besides the transition (columns,
 * rows). The object runs one at a time and commits it (verification-object.ts `#apply`). Redaction's
 * is in redaction.ts.
 */

export function capturePlan(id: string, input: CaptureInput): Decide {
  return (state, record, now) => {
    const earlier = record.captures.find((c) => c.imageKey === input.imageKey);
    if (earlier) return machine.checkRetry(state.config, earlier.stepKey, input.stepKey) ?? { transition: noChange(state), noop: true, replayed: true };
    const decision = machine.acceptCapture(state, input, now);
    if (!decision.ok) return decision;
    const row = captureRow({ verificationId: id, tenantId: state.tenantId }, input, decision, now);
    return {
      transition: decision.transition,
      columns: { capturesCount: decision.seq },
      statements: (_db, d1) => [insertRow(d1, captures, row), ...(input.uploads ?? []).map((u) => recordUploadDigest(d1, u))],
      // Captures are appended in seq order: the record after is known without reading it back.
      after: (before, updated) => ({ ...before, row: updated, captures: [...before.captures, row] }),
    };
  };
}

export function answerPlan(id: string, stepKey: string, value: string): Decide {
  return async (state, _record, now) => {
    const decision = machine.recordAnswer(state, stepKey, value, now);
    if (!decision.ok) return decision;
    if (decision.unchanged) return { transition: noChange(state), noop: true };
    const { revisions } = decision;
    const sealHash = await computeSealHash({ ...state, answers: { ...state.answers, [stepKey]: { value, answeredAt: now, revisions } } });
    return {
      transition: decision.transition,
      columns: { sealHash },
      statements: (db) => [
        db
          .insert(answers)
          .values({ verificationId: id, stepKey, value, answeredAt: now, revisions })
          .onConflictDoUpdate({ target: [answers.verificationId, answers.stepKey], set: { value, answeredAt: now, revisions } }),
      ],
    };
  };
}

export const submitPlan: Decide = (state, _record, now) => {
  const decision = machine.submit(state, now);
  if (!decision.ok) return decision;
  // Submitted with no capture: failed in the same write, with its reason (machine.submit).
  const columns = decision.failureReason !== undefined ? { failureReason: decision.failureReason } : undefined;
  return { transition: decision.transition, noop: decision.alreadySubmitted, ...(columns ? { columns } : {}) };
};

export function progressPlan(kind: ProgressKind, snapshot: Record<string, unknown>): Decide {
  return (state, _record, now) => {
    const decision = machine.reportProgress(state, kind, now);
    if (!decision.ok) return decision;
    return { transition: decision.transition, columns: { progress: { ...snapshot, received_at: new Date(now).toISOString() } } };
  };
}

/** The analysis outcome: the verdict and the independent checks, then `completed`. */
export function completePlan(outcome: { verdict: unknown; objectMatch?: unknown; locationMatch?: unknown; condition?: unknown }): Decide {
  return (state, _record, now) => {
    // The timeline names the label, and says when it claims nothing (`assessment: none`).
    const { label, assessment } = (outcome.verdict ?? {}) as { label?: string; assessment?: string };
    const decision = machine.complete(state, now, label ? { label, ...(assessment ? { assessment } : {}) } : {});
    if (!decision.ok) return decision;
    const columns = { verdict: outcome.verdict, objectMatch: outcome.objectMatch ?? null, locationMatch: outcome.locationMatch ?? null, condition: outcome.condition ?? null };
    return { transition: decision.transition, columns };
  };
}

export function failPlan(reason: string): Decide {
  return (state) => {
    const decision = machine.fail(state, reason);
    return decision.ok ? { transition: decision.transition, columns: { failureReason: reason } } : decision;
  };
}

export function finalizePlan(narrative: string): Decide {
  return (state, _record, now) => {
    const decision = machine.finalize(state, narrative, now);
    return decision.ok ? { transition: decision.transition, columns: { narrative } } : decision;
  };
}

/**
 * The case analysis of the captures `read` (their analyses completed), written after finalize; a
 * later one replaces it only if it read a capture the stored one did not (evidence received after
 * finalize), so runs racing over an older set of captures change nothing.
 */
export function caseAnalysisPlan(caseAnalysis: unknown, read: readonly string[]): Decide {
  return (state, record) => {
    // A run that read the narrative before a redaction ends here: nothing is written back onto a tombstone.
    if (state.redactedAt !== null) return errorResult("redacted", "This verification was redacted.");
    if (state.finalizedAt === null) return errorResult("invalid_state", "The case was not finalized.");
    if (record.row.caseAnalysis && caseAnalysisCovers(record.row.caseAnalysis, read)) return { transition: noChange(state), noop: true };
    return { transition: { status: state.status, patch: {}, events: [{ name: "verification.case.analyzed" }] }, columns: { caseAnalysis } };
  };
}

export function reviewPlan(cmd: ReviewCommand): Decide {
  return (state, record, now) => {
    // A retry of the latest review is answered as recorded, also once the reviews reached their bound.
    if (state.redactedAt === null && machine.repeatsLatestReview(record.row.review, cmd, now)) return { transition: noChange(state), noop: true };
    const latest = record.row.review;
    const decision = machine.review(state, cmd, now, { count: machine.reviewCount(latest), latestAt: machine.reviewedAt(latest), judged: record.row.verdict != null });
    if (!decision.ok) return decision;
    return { transition: decision.transition, columns: { review: decision.review } };
  };
}

export const expirePlan: Decide = (state, _record, now) => {
  const decision = machine.expire(state, now);
  return decision.ok ? { transition: decision.transition } : decision;
};
