import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { auditLog, events, verifications } from "../../db/schema";
import { insertRow, toStatement, updateWhere } from "../../db/statements";
import { recordFromResults, recordStatements, type EventRow, type VerificationRecord, type VerificationRow } from "../../db/verifications";
import { auditRow, type AuditEntry } from "../../model/audit/entry";
import type { ErrorResult } from "../../lib/errors";
import type { VerificationState } from "../../model/verification/state";
import type { Transition } from "../../model/verification/transitions";

/** What a decision asks the object to write besides the transition itself. */
export interface Plan {
  transition: Transition;
  columns?: Partial<typeof verifications.$inferInsert>;
  /** drizzle queries, or prepared D1 statements (db/statements.ts) on the hot paths */
  statements?: (db: Db, d1: D1Database) => (BatchItem<"sqlite"> | D1PreparedStatement)[];
  /** Nothing to write: answer with the current record. */
  noop?: boolean;
  /** A retry of a write already made (answered as a replay). */
  replayed?: boolean;
  /**
   * The record after the commit, computed instead of read back: `row` is the record's row with the
   * update applied. Exact because every write to a verification's rows moves its version (the CAS
   * would have failed otherwise), so a commit that passed started from exactly `record`.
   */
  after?: (record: VerificationRecord, row: VerificationRow) => VerificationRecord;
}

/** A command's decision: the model's answer turned into what to write, or the refusal. */
export type Decide = (state: VerificationState, record: VerificationRecord, now: number) => Plan | ErrorResult | Promise<Plan | ErrorResult>;

/**
 * The operator's audit entry (domain/audit/log.ts) written in the decision's own commit: recorded
 * exactly when the command changes something (a refusal or a no-op, such as a repeated redaction,
 * records nothing), and never apart from the change.
 */
export function withAudit(decide: Decide, audit: AuditEntry | undefined): Decide {
  if (!audit) return decide;
  return async (state, record, now) => {
    const plan = await decide(state, record, now);
    if ("ok" in plan || plan.noop) return plan;
    return { ...plan, statements: (db, d1) => [...(plan.statements?.(db, d1) ?? []), insertRow(d1, auditLog, auditRow(audit, now))] };
  };
}

export function noChange(state: VerificationState): Transition {
  return { status: state.status, patch: {}, events: [] };
}

/**
 * One commit as one D1 batch of prepared statements (this is every capture's commit: db/statements.ts):
 * first the compare-and-swap on the version read (trigger `verifications_version_cas` aborts the
 * batch), then the plan's writes, the events, the outbox journal's marks (`marks`), and the record
 * read back in the same round trip unless the plan knows it (`after`).
 */
export function commitBatch(input: {
  db: Db;
  d1: D1Database;
  state: VerificationState;
  plan: Plan;
  eventRows: EventRow[];
  marks: D1PreparedStatement[];
  now: number;
}): { statements: D1PreparedStatement[]; after(record: VerificationRecord, results: D1Result[]): VerificationRecord | null } {
  const { db, d1, state, plan, now } = input;
  const set = { ...plan.columns, ...plan.transition.patch, status: plan.transition.status, version: state.version + 1, updatedAt: now };
  const readBack = plan.after ? [] : recordStatements(d1, state.id);
  const statements = [
    updateWhere(d1, verifications, set, { key: "id", value: state.id }),
    ...(plan.statements?.(db, d1) ?? []).map((item) => toStatement(d1, item)),
    ...input.eventRows.map((row) => insertRow(d1, events, row)),
    ...input.marks,
    ...readBack,
  ];
  return {
    statements,
    after: (record, results) =>
      plan.after
        ? plan.after(record, { ...record.row, ...Object.fromEntries(Object.entries(set).filter(([, v]) => v !== undefined)) } as VerificationRow)
        : recordFromResults(results.slice(-readBack.length)),
  };
}
