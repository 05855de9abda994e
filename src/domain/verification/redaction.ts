import { inArray } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { analysesOf, type CaptureAnalysisRow } from "../../db/analyses";
import type { Db } from "../../db/client";
import { redactionStatements, type RedactionTarget } from "../../db/redaction";
import { captureAnalyses, events } from "../../db/schema";
import {
  eventRow,
  isVersionConflict,
  loadTenantRecord,
  markDispatched,
  toState,
  versionedUpdate,
  type EventRow,
  type VerificationRecord,
  type VerificationRow,
} from "../../db/verifications";
import { unwrap, verificationObject } from "../../durable-objects/verification-client";
import { settings } from "../../env";
import { queuePublisher } from "../../events/publisher";
import { ApiError } from "../../lib/errors";
import { isId } from "../../lib/ids";
import type { AuditEntry } from "../audit/log";
import { UPLOAD_TTL_MS } from "../capture/uploads";
import { redactAnalysisResult } from "../evidence/analysis-view";
import type { VerificationConfig } from "./config";
import { presentVerification } from "./present";
import { isTerminal } from "./state";
import * as machine from "./transitions";

/*
 * Redaction turns a verification into a tombstone: ids, statuses, timestamps, the SHA-256 digests
 * (captures, record seal) and the verdict stay; everything a person supplied or the evidence showed
 * goes. The R2 objects are deleted by the Durable Object right after the D1 write
 * (durable-objects/verification-object.ts#redact); db/redaction.ts clears the other tables.
 */

/**
 * After this long without a write, nothing can still be adding to a verification: every upload URL
 * minted before has expired (5 min) and any PUT or analysis under way has finished (6 min grace).
 */
export const QUIET_AFTER_MS = UPLOAD_TTL_MS + 6 * 60 * 1000;

/** Config fields that carry personal data or a claim's particulars. */
const PERSONAL_CONFIG_FIELDS = ["metadata", "context", "notify_email", "expected_location", "expected_object"] as const;

export function redactConfig(config: VerificationConfig): VerificationConfig {
  const out: VerificationConfig = { ...config };
  for (const field of PERSONAL_CONFIG_FIELDS) delete out[field];
  return out;
}

/**
 * The verification row's columns after redaction. The narrative, the case analysis and the
 * independent checks describe the evidence (or quote the address and object) and go; a review
 * keeps its decision, reviewer and time but not its note.
 */
export function redactedColumns(row: VerificationRow, now: number) {
  const review = row.review as { note?: string } | null;
  const { note: _note, ...kept } = review ?? {};
  return {
    config: redactConfig(row.config),
    narrative: null,
    caseAnalysis: null,
    objectMatch: null,
    locationMatch: null,
    condition: null,
    review: review ? kept : null,
    redactedAt: now,
  } satisfies Partial<VerificationRow>;
}

/** The record as it reads once redacted (what later webhooks and idempotent replays carry). */
export function redactedRecord(record: VerificationRecord, now: number): VerificationRecord {
  return {
    row: { ...record.row, ...redactedColumns(record.row, now) },
    captures: record.captures.map((c) => ({ ...c, location: null })),
    answers: [],
  };
}

function redactionTarget(record: VerificationRecord, analyses: CaptureAnalysisRow[], now: number, baseUrl: string): RedactionTarget {
  const { row } = record;
  const tombstone = presentVerification(redactedRecord(record, now), { baseUrl, audience: "tenant", now });
  return {
    verificationId: row.id,
    tenantId: row.tenantId,
    createdAt: row.createdAt,
    captureIds: record.captures.map((c) => c.id),
    analyses: analyses.map((a) => ({ captureId: a.captureId, result: redactAnalysisResult(a.result) })),
    tombstoneJson: JSON.stringify(tombstone),
    has: {
      answers: record.answers.length > 0,
      timelineText: row.finalizedAt !== null || row.review !== null,
      webhooks: Boolean(row.config.webhook_url),
      // notify_email, or a trial's verdict sent over messaging.
      messages: Boolean(row.config.notify_email) || row.originChannel !== null,
    },
  };
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
 * Whether a verification can be redacted without its Durable Object: it is over, and has not been
 * written for long enough that no upload or analysis can still add to it (no final sweep needed).
 */
export function isSettled(record: VerificationRecord, now: number): boolean {
  return isTerminal(record.row.status) && record.row.redactedAt === null && record.row.updatedAt < now - QUIET_AFTER_MS;
}

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

/**
 * Redacts a tenant's verification through its Durable Object (404 for another tenant's). `by` is who
 * asked: a user (`usr_…`), an API key (`key_…`) or `retention`.
 */
/**
 * Redacts a tenant's verification (404 for another tenant's). `audit` (`verification.redacted`) is
 * written by the verification's object in the tombstone's own batch, so a repeat, which changes
 * nothing, records nothing, and the entry outlives the redaction it records.
 */
export async function redactVerification(env: Env, db: Db, input: { tenantId: string; id: string; by: string; audit?: AuditEntry }): Promise<VerificationRecord> {
  const existing = isId("verification", input.id) ? await loadTenantRecord(db, input.tenantId, input.id) : null;
  if (!existing) throw ApiError.notFound("verification");
  return unwrap(await verificationObject(env, input.id).redact(input.id, input.by, input.audit)).record;
}
