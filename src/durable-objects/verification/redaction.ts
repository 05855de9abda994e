import type { BatchItem } from "drizzle-orm/batch";
import { analysesOf } from "../../db/analyses";
import type { Db } from "../../db/client";
import { redactionStatements } from "../../db/redaction";
import type { VerificationRecord } from "../../db/verifications";
import { settings } from "../../env";
import { log } from "../../lib/log";
import { QUIET_AFTER_MS, redactedColumns, redactionTarget } from "../../model/verification/redaction";
import * as machine from "../../model/verification/transitions";
import { retryDelay } from "./outbox";
import type { AuditEntry } from "../../model/audit/entry";
import { noChange, withAudit, type Decide } from "./commit";
import type { MutationResult, ObjectContext } from "./context";

/*
 * Redaction's steps inside the verification's Durable Object (which runs them in order: the intent,
 * the D1 batch, the R2 prefix, a final sweep): the D1 statements of the tombstone's batch, the
 * clean-up run again after it, and the stored intent that the alarm re-drives until all is done.
 */

/** A redaction accepted but not finished (DO storage key `redaction`): the alarm re-drives it. */
export interface PendingRedaction {
  by: string;
  attempts: number;
  retryAt: number;
  /** The operator audit entry the tombstone's batch records (absent for the retention run). */
  audit?: AuditEntry;
}

export function pendingRedaction(storage: DurableObjectStorage): Promise<PendingRedaction | undefined> {
  return storage.get<PendingRedaction>("redaction");
}

/** Stores the intent (one more attempt) and makes sure the alarm retries it with backoff. */
export async function armRedactionRetry(storage: DurableObjectStorage, pending: PendingRedaction, now: number): Promise<void> {
  const retryAt = now + retryDelay(pending.attempts + 1);
  await storage.put("redaction", { ...pending, attempts: pending.attempts + 1, retryAt });
  const current = await storage.getAlarm();
  if (current === null || current > retryAt) await storage.setAlarm(retryAt);
}

export async function forgetRedaction(storage: DurableObjectStorage): Promise<void> {
  await storage.delete("redaction");
}

/**
 * The D1 statements that clear everything besides the verification row, for the tombstone's batch
 * (the Durable Object's write). `record` is the verification as loaded for the decision.
 */
export async function redactionPlan(db: Db, record: VerificationRecord, now: number, baseUrl: string): Promise<(db: Db) => BatchItem<"sqlite">[]> {
  const analyses = record.captures.length > 0 ? await analysesOf(db, record.row.id) : [];
  const target = redactionTarget(record, analyses, now, baseUrl);
  return (batchDb) => redactionStatements(batchDb, target);
}

/**
 * Runs the clean-up of a redacted verification again (all of it is idempotent): what a writer that
 * had read the verification just before the redaction wrote after it (an analysis result or hash,
 * a webhook body, a notification) is cleared too. The Durable Object's final sweep runs it.
 */
export async function scrubAgain(db: Db, record: VerificationRecord, baseUrl: string): Promise<void> {
  const redactedAt = record.row.redactedAt;
  if (redactedAt === null) return;
  const analyses = record.captures.length > 0 ? await analysesOf(db, record.row.id) : [];
  const target = redactionTarget(record, analyses, redactedAt, baseUrl);
  target.has = { answers: true, timelineText: true, webhooks: true, messages: true };
  await db.batch(redactionStatements(db, target) as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
}


/** The tombstone's commit (`onAlready`: told whether it was redacted before, so nothing is written). */
function redactPlan(by: string, db: Db, baseUrl: string, onAlready: (already: boolean) => void): Decide {
  return async (state, record, now) => {
    const decision = machine.redact(state, by);
    if (!decision.ok) return decision;
    onAlready(decision.alreadyRedacted);
    if (decision.alreadyRedacted) return { transition: decision.transition, noop: true };
    const columns = { ...redactedColumns(record.row, now), ...(decision.failureReason !== undefined ? { failureReason: decision.failureReason } : {}) };
    return { transition: decision.transition, columns, statements: await redactionPlan(db, record, now, baseUrl) };
  };
}

/** What the redaction's steps need of the object: its commit (under its lock), the outbox re-drive and the alarm. */
export interface RedactionSteps {
  apply(decide: Decide): Promise<MutationResult>;
  redrive(): Promise<void>;
  schedule(record: VerificationRecord): Promise<void>;
}

/** The D1 step (once) then the R2 step; the caller holds the object's lock and has armed the retry. */
export async function completeRedaction(cx: ObjectContext, steps: RedactionSteps, id: string, pending: PendingRedaction): Promise<MutationResult> {
  const baseUrl = settings(cx.env).baseUrl;
  let alreadyRedacted = false;
  const result = await steps.apply(withAudit(redactPlan(pending.by, cx.db(), baseUrl, (already) => (alreadyRedacted = already)), pending.audit));
  if (!result.ok) {
    // Nothing to redact any more; any other refusal (a lost race) is retried by the alarm.
    if (result.error.code === "not_found") await forgetRedaction(cx.storage);
    return result;
  }
  const { record } = result;
  // Redacted before, maybe in bulk by the retention run: send any event that write left unsent.
  if (alreadyRedacted) await steps.redrive();
  try {
    await cx.purger().purge(id);
  } catch (err) {
    // The tombstone is committed; the alarm empties the prefix on its next try.
    log.error({ msg: "evidence purge failed; alarm will re-drive", verification_id: id, error: String(err) });
    await steps.schedule(record);
    return result;
  }
  await forgetRedaction(cx.storage);
  // After a redaction, the prefix is emptied once more when nothing can still be writing to it.
  const finalSweepAt = (record.row.redactedAt ?? 0) + QUIET_AFTER_MS;
  if (finalSweepAt > cx.now()) await cx.storage.put({ sweep_at: finalSweepAt, sweep_scheduled: true });
  else await scrubAgain(cx.db(), record, baseUrl);
  await steps.schedule(record);
  return result;
}

/** The alarm's turn: a redaction still pending is tried again (its retry armed first); the record after, if it went through. */
export async function redriveRedaction(cx: ObjectContext, steps: RedactionSteps, id: string): Promise<VerificationRecord | undefined> {
  const pending = await pendingRedaction(cx.storage);
  if (!pending) return undefined;
  try {
    await armRedactionRetry(cx.storage, pending, cx.now());
    const result = await completeRedaction(cx, steps, id, pending);
    if (result.ok) return result.record;
  } catch (err) {
    log.error({ msg: "redaction re-drive failed; will retry", verification_id: id, error: String(err) });
  }
  return undefined;
}

/**
 * The final sweep's share of the row itself: the tombstone's columns again (`redactedColumns` at the
 * original `redacted_at`), written only when a late writer put something back.
 */
export async function reapplyTombstone(steps: Pick<RedactionSteps, "apply">, record: VerificationRecord): Promise<VerificationRecord> {
  const tombstone = redactedColumns(record.row, record.row.redactedAt!);
  const drifted = (Object.keys(tombstone) as (keyof typeof tombstone)[]).some((k) => JSON.stringify(record.row[k]) !== JSON.stringify(tombstone[k]));
  if (!drifted) return record;
  const result = await steps.apply((state) => ({ transition: noChange(state), columns: tombstone }));
  return result.ok ? result.record : record;
}
