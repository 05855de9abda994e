import { inArray } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { redactionStatements } from "../../db/redaction";
import { captureAnalyses, events } from "../../db/schema";
import { eventRow, isVersionConflict, loadTenantRecord, markDispatched, versionedUpdate, type EventRow, type VerificationRecord } from "../../db/verifications";
import { unwrap, verificationObject } from "../../durable-objects/verification-client";
import { settings } from "../../env";
import { queuePublisher } from "../../events/publisher";
import { ApiError } from "../../lib/errors";
import { isId } from "../../lib/ids";
import { redactedColumns, redactionTarget } from "../../model/verification/redaction";
import { toState } from "../../model/verification/record";
import * as machine from "../../model/verification/transitions";
import type { AuditEntry } from "../audit/log";

/*
 * Redaction's doors on the Worker side: one verification through its Durable Object, or settled ones
 * in bulk (the retention run). What a tombstone keeps is model/verification/redaction.ts.
 */

/**
 * Redacts settled verifications in one D1 batch (the retention run: a Durable Object round per row
 * would cost D1 several round trips each). Every row is written under its own version
 * compare-and-swap, exactly like the Durable Object's writes, so a concurrent write anywhere aborts
 * the whole batch: then nothing was written and null tells the caller to go through the Durable
 * Objects instead. After the commit the events are published and the bucket prefixes emptied; if
 * that fails the caller's retry finds the rows redacted and completes them through the Durable
 * Objects (whose alarms also re-drive the outbox). Returns the ids redacted.
 */
export async function redactSettledInBulk(env: Env, db: Db, records: VerificationRecord[], by: string, now: number): Promise<string[] | null> {
  const baseUrl = settings(env).baseUrl;
  const withCaptures = records.filter((r) => r.captures.length > 0).map((r) => r.row.id);
  const analyses = withCaptures.length > 0 ? await db.select().from(captureAnalyses).where(inArray(captureAnalyses.verificationId, withCaptures)) : [];
  const statements: BatchItem<"sqlite">[] = [];
  const eventRows: EventRow[] = [];
  const redacted: string[] = [];
  for (const record of records) {
    const { row } = record;
    const decision = machine.redact(toState(record), by);
    if (!decision.ok || decision.alreadyRedacted) continue;
    const rows = decision.transition.events.map((e) => eventRow(row.id, row.tenantId, e, now));
    const target = redactionTarget(record, analyses.filter((a) => a.verificationId === row.id), now, baseUrl);
    statements.push(
      versionedUpdate(db, row.id, row.version, { ...redactedColumns(row, now), status: decision.transition.status }, now),
      ...redactionStatements(db, target),
      db.insert(events).values(rows),
    );
    eventRows.push(...rows);
    redacted.push(row.id);
  }
  if (statements.length === 0) return [];
  try {
    await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  } catch (err) {
    if (isVersionConflict(err)) return null;
    throw err;
  }
  await queuePublisher(env.EVENTS_QUEUE).publish(eventRows);
  await markDispatched(db, eventRows.map((e) => e.id), now);
  return redacted;
}

/**
 * Redacts a tenant's verification through its Durable Object (404 for another tenant's). `by` is who
 * asked: a user (`usr_…`), an API key (`key_…`) or `retention`. `audit` (`verification.redacted`)
 * is written by the object in the tombstone's own batch, so a repeat, which changes nothing, records
 * nothing, and the entry outlives the redaction it records.
 */
export async function redactVerification(env: Env, db: Db, input: { tenantId: string; id: string; by: string; audit?: AuditEntry }): Promise<VerificationRecord> {
  const existing = isId("verification", input.id) ? await loadTenantRecord(db, input.tenantId, input.id) : null;
  if (!existing) throw ApiError.notFound("verification");
  return unwrap(await verificationObject(env, input.id).redact(input.id, input.by, input.audit)).record;
}
