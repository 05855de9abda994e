import type { VerificationRecord } from "../../db/verifications";
import type { VerificationState } from "./state";

/*
 * Apart from state.ts, which the capture page's browser code imports (for the status type): this
 * file names the D1 record, whose types need the Workers runtime's.
 */

/** The state a decision starts from, read off the record as loaded from D1. */
export function toState(record: VerificationRecord): VerificationState {
  const { row } = record;
  return {
    id: row.id,
    tenantId: row.tenantId,
    status: row.status,
    version: row.version,
    config: row.config,
    sealEnabled: row.sealEnabled,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    submittedAt: row.submittedAt,
    readyAt: row.readyAt,
    completedAt: row.completedAt,
    finalizedAt: row.finalizedAt,
    redactedAt: row.redactedAt,
    abandonments: row.abandonments,
    captures: record.captures.map((c) => ({ id: c.id, stepKey: c.stepKey, imageKey: c.imageKey })),
    answers: Object.fromEntries(record.answers.map((a) => [a.stepKey, { value: a.value, answeredAt: a.answeredAt, revisions: a.revisions }])),
  };
}
