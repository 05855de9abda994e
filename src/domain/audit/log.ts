import { and, desc, eq, lt, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { auditLog } from "../../db/schema";
import { insertRowWhere } from "../../db/statements";
import { issueCursor, readCursor } from "../../lib/page-cursor";
import { auditRow, type AuditAction, type AuditEntry, type AuditRow } from "../../model/audit/entry";

export { AUDIT_ACTIONS } from "../../schemas/audit-log";
export { auditRow };
export type { AuditAction, AuditActor, AuditClient, AuditEntry, AuditRow } from "../../model/audit/entry";

/*
 * The operator audit log: every administrative or evidence action of a person or an API key. An
 * entry is written in the same D1 batch as the change it records (a change that does not commit
 * leaves no entry, one that commits always has one), and the table refuses UPDATE and DELETE
 * (triggers of its migration): nothing edits or removes an entry, redaction included. The entry
 * itself (and its row) is model/audit/entry.ts; the actions, schemas/audit-log.ts.
 */

/** The entry's INSERT, for the batch of the change it records. */
export function auditInsert(db: Db, entry: AuditEntry, now: number) {
  return db.insert(auditLog).values(auditRow(entry, now));
}

/**
 * The entry's INSERT, made only if `condition` holds when the batch reaches it: placed before the
 * change, a condition on the state the request saw keeps a concurrent repeat (which then changes
 * nothing) from recording the action twice.
 */
export function auditInsertWhile(db: Db, entry: AuditEntry, now: number, condition: { sql: string; params: unknown[] }): D1PreparedStatement {
  return insertRowWhere(db.$client, auditLog, auditRow(entry, now), condition);
}

/** Records an action that writes nothing else (e.g. revealing the webhook secret). */
export async function recordAudit(db: Db, entry: AuditEntry, now = Date.now()): Promise<void> {
  await auditInsert(db, entry, now).run();
}

export interface AuditFilters {
  limit: number;
  cursor?: string;
  action?: AuditAction;
  /** A user (`usr_…`) or API key (`key_…`) id. */
  actorId?: string;
}

const CURSOR_PURPOSE = "audit-cursor";

/**
 * Newest first, keyset-paginated on the id (a monotonic ULID: creation order, also within a
 * millisecond). Each filter is an equality on an index that ends in `id`.
 */
export async function listAuditLog(db: Db, secret: string, tenantId: string, filters: AuditFilters): Promise<{ rows: AuditRow[]; nextCursor?: string }> {
  const query = { purpose: CURSOR_PURPOSE, tenantId, filters: { action: filters.action, actorId: filters.actorId } };
  const conditions: SQL[] = [eq(auditLog.tenantId, tenantId)];
  if (filters.cursor !== undefined) conditions.push(lt(auditLog.id, await readCursor(secret, query, filters.cursor)));
  if (filters.action) conditions.push(eq(auditLog.action, filters.action));
  if (filters.actorId) conditions.push(eq(auditLog.actorId, filters.actorId));
  const rows = await db
    .select()
    .from(auditLog)
    .where(and(...conditions))
    .orderBy(desc(auditLog.id))
    .limit(filters.limit + 1);
  const page = rows.slice(0, filters.limit);
  const last = page[page.length - 1];
  if (rows.length > filters.limit && last) return { rows: page, nextCursor: await issueCursor(secret, query, last.id) };
  return { rows: page };
}
