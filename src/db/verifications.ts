import { and, asc, count, desc, eq, gt, inArray, isNull } from "drizzle-orm";
import type { Db } from "./client";
import { decodeRows } from "./statements";
import { answers, captures, events, verifications } from "./schema";
import { newId } from "../lib/ids";

export type VerificationRow = typeof verifications.$inferSelect;
export type CaptureRow = typeof captures.$inferSelect;
export type AnswerRow = typeof answers.$inferSelect;
export type EventRow = typeof events.$inferSelect;

/** A verification with everything a read or a decision needs, loaded in one D1 round trip. */
export interface VerificationRecord {
  row: VerificationRow;
  captures: CaptureRow[];
  answers: AnswerRow[];
}

/** The three reads a record is made of; `loadRecord` runs them alone, a commit may append them to its batch. */
export function recordStatements(d1: D1Database, id: string): D1PreparedStatement[] {
  return [
    d1.prepare("SELECT * FROM verifications WHERE id = ?").bind(id),
    d1.prepare("SELECT * FROM captures WHERE verification_id = ? ORDER BY seq").bind(id),
    d1.prepare("SELECT * FROM answers WHERE verification_id = ?").bind(id),
  ];
}

/** The record from the results of `recordStatements`. */
export function recordFromResults([rows, captureRows, answerRows]: D1Result[]): VerificationRecord | null {
  return toRecord([decodeRows(verifications, rows!), decodeRows(captures, captureRows!), decodeRows(answers, answerRows!)]);
}

/** The record from its three row sets (null when the verification does not exist). */
export function toRecord([rows, captureRows, answerRows]: readonly [VerificationRow[], CaptureRow[], AnswerRow[]]): VerificationRecord | null {
  const row = rows[0];
  return row ? { row, captures: captureRows, answers: answerRows } : null;
}

/**
 * One verification's record in one D1 round trip. Prepared statements, not drizzle queries: every
 * capture's events consumer and analysis read it (db/statements.ts).
 */
export async function loadRecord(db: Db, id: string): Promise<VerificationRecord | null> {
  const d1 = db.$client;
  return recordFromResults(await d1.batch(recordStatements(d1, id)));
}

/** The columns that say whether a verification awaits its verdict. */
export type SettlingColumns = Pick<VerificationRow, "status" | "readyAt" | "redactedAt">;

/** The read of `settlingColumns`, for a batch. */
export function settlingStatement(d1: D1Database, id: string): D1PreparedStatement {
  return d1.prepare("SELECT status, ready_at AS readyAt, redacted_at AS redactedAt FROM verifications WHERE id = ?").bind(id);
}

/** The columns that say whether a verification awaits its verdict, without the record (null: no such verification). */
export async function settlingColumns(db: Db, id: string): Promise<SettlingColumns | null> {
  return settlingStatement(db.$client, id).first<SettlingColumns>();
}

/**
 * The `webhook_url` a verification's config names (null without one, undefined when there is no
 * such verification), read without the record: most events of a verification without a webhook
 * need nothing else.
 */
export async function webhookUrlOf(db: Db, id: string): Promise<string | null | undefined> {
  const row = await db.$client
    .prepare("SELECT json_extract(config, '$.webhook_url') AS url FROM verifications WHERE id = ?")
    .bind(id)
    .first<{ url: string | null }>();
  return row ? row.url : undefined;
}

/** Several verifications at once (at most 90 ids: one bound parameter each), in one D1 round trip. */
export async function loadRecords(db: Db, ids: string[]): Promise<VerificationRecord[]> {
  if (ids.length === 0) return [];
  const [rows, captureRows, answerRows] = await db.batch([
    db.select().from(verifications).where(inArray(verifications.id, ids)),
    db.select().from(captures).where(inArray(captures.verificationId, ids)).orderBy(asc(captures.verificationId), asc(captures.seq)),
    db.select().from(answers).where(inArray(answers.verificationId, ids)),
  ]);
  return rows.map((row) => ({
    row,
    captures: captureRows.filter((c) => c.verificationId === row.id),
    answers: answerRows.filter((a) => a.verificationId === row.id),
  }));
}

/** The tenant-scoped read: another tenant's verification is indistinguishable from a missing one. */
export async function loadTenantRecord(db: Db, tenantId: string, id: string): Promise<VerificationRecord | null> {
  const record = await loadRecord(db, id);
  return record && record.row.tenantId === tenantId ? record : null;
}

export async function undispatchedEvents(db: Db, verificationId: string): Promise<EventRow[]> {
  return db
    .select()
    .from(events)
    .where(and(eq(events.verificationId, verificationId), isNull(events.dispatchedAt)))
    .orderBy(asc(events.id));
}

export async function markDispatched(db: Db, ids: string[], now: number): Promise<void> {
  // 100 bound parameters per statement: ids are chunked well below that.
  for (let i = 0; i < ids.length; i += 50) {
    await db.update(events).set({ dispatchedAt: now }).where(inArray(events.id, ids.slice(i, i + 50)));
  }
}

/**
 * Puts a published event back in its verification's outbox, at most until it has been dead-lettered
 * `maxDeadLetters` times (its dead letters are counted in `queue_failures`): true when it went back.
 */
export async function returnToOutbox(db: Db, eventId: string, maxDeadLetters: number): Promise<boolean> {
  const result = await db.$client
    .prepare(
      `UPDATE events SET dispatched_at = NULL WHERE id = ?
       AND (SELECT count(*) FROM queue_failures WHERE json_extract(body, '$.type') = 'domain_event' AND json_extract(body, '$.event.id') = ?) <= ?`,
    )
    .bind(eventId, eventId, maxDeadLetters)
    .run();
  return (result.meta.changes ?? 0) > 0;
}

/** The row of a verification as created: version 1, `pending`, nothing captured. */
export function newVerificationRow(input: {
  id: string;
  tenantId: string;
  config: VerificationRow["config"];
  sealEnabled: boolean;
  createdAt: number;
  expiresAt: number;
  originChannel?: string | undefined;
  templateId?: string | undefined;
  templateVersion?: number | undefined;
  /** The webhook_url passed the local-development gate unguarded (see the column). */
  webhookUnguarded?: boolean;
}): VerificationRow {
  return {
    id: input.id,
    tenantId: input.tenantId,
    status: "pending",
    version: 1,
    config: input.config,
    sealEnabled: input.sealEnabled,
    originChannel: input.originChannel ?? null,
    templateId: input.templateId ?? null,
    templateVersion: input.templateVersion ?? null,
    createdAt: input.createdAt,
    updatedAt: input.createdAt,
    expiresAt: input.expiresAt,
    capturesCount: 0,
    submittedAt: null,
    readyAt: null,
    completedAt: null,
    sealHash: null,
    verdict: null,
    objectMatch: null,
    locationMatch: null,
    condition: null,
    failureReason: null,
    narrative: null,
    finalizedAt: null,
    caseAnalysis: null,
    progress: null,
    abandonments: 0,
    review: null,
    redactedAt: null,
    webhookUnguarded: input.webhookUnguarded ?? false,
  };
}

/** The statements marking `ids` dispatched, for a batch (100 bound parameters per statement: chunks of 50). */
export function markDispatchedStatements(d1: D1Database, ids: string[], now: number): D1PreparedStatement[] {
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < ids.length; i += 50) {
    const chunk = ids.slice(i, i + 50);
    statements.push(d1.prepare(`UPDATE events SET dispatched_at = ? WHERE id IN (${chunk.map(() => "?").join(", ")})`).bind(now, ...chunk));
  }
  return statements;
}

export async function timeline(db: Db, verificationId: string): Promise<EventRow[]> {
  return db.select().from(events).where(eq(events.verificationId, verificationId)).orderBy(asc(events.id));
}

/**
 * The first and the last `each` events of a verification, oldest first, and how many lie between
 * (the whole timeline when it holds at most 2 × `each`): what a printed timeline shows.
 */
export async function timelineEnds(db: Db, verificationId: string, each: number): Promise<{ head: EventRow[]; tail: EventRow[]; between: number }> {
  const mine = eq(events.verificationId, verificationId);
  const head = await db.select().from(events).where(mine).orderBy(asc(events.id)).limit(2 * each + 1);
  if (head.length <= 2 * each) return { head, tail: [], between: 0 };
  const [tail, total] = await Promise.all([
    db.select().from(events).where(mine).orderBy(desc(events.id)).limit(each),
    db.select({ n: count() }).from(events).where(mine).get(),
  ]);
  return { head: head.slice(0, each), tail: tail.reverse(), between: (total?.n ?? 0) - 2 * each };
}

/** At most `limit` events of a verification after the event id `after`, oldest first. */
export async function timelinePage(db: Db, verificationId: string, page: { limit: number; after?: string }): Promise<EventRow[]> {
  const where = page.after === undefined ? eq(events.verificationId, verificationId) : and(eq(events.verificationId, verificationId), gt(events.id, page.after));
  return db.select().from(events).where(where).orderBy(asc(events.id)).limit(page.limit);
}

/**
 * The first statement of every write to a verification: the compare-and-swap on the version it
 * read (trigger `verifications_version_cas` aborts the whole batch if another write came first).
 */
export function versionedUpdate(db: Db, id: string, readVersion: number, set: Partial<typeof verifications.$inferInsert>, now: number) {
  return db
    .update(verifications)
    .set({ ...set, version: readVersion + 1, updatedAt: now })
    .where(eq(verifications.id, id));
}

/** A new outbox/timeline row for an event a write emits. */
export function eventRow(verificationId: string, tenantId: string, draft: { name: string; payload?: Record<string, unknown> }, now: number): EventRow {
  return {
    id: newId("event", now),
    verificationId,
    tenantId,
    name: draft.name,
    payload: draft.payload ?? null,
    occurredAt: now,
    dispatchedAt: null,
  };
}

function errorText(err: unknown): string {
  const parts: string[] = [];
  let current: unknown = err;
  while (current instanceof Error) {
    parts.push(current.message);
    current = current.cause;
  }
  return parts.join(" | ") || String(err);
}

/** The batch lost the compare-and-swap (trigger `verifications_version_cas`): another write came first. */
export function isVersionConflict(err: unknown): boolean {
  return errorText(err).includes("version_conflict");
}

export function isUniqueViolation(err: unknown): boolean {
  return errorText(err).includes("UNIQUE constraint failed");
}
