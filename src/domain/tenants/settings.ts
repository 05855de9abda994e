import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { tenants } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { auditInsert, type AuditEntry } from "../audit/log";

export interface TenantSettings {
  /** Shown to end users (capture page, certificate) and operators. */
  displayName: string;
  /** Verifications created more than this many days ago are redacted daily; null keeps them. */
  retentionDays: number | null;
  /** Opted in to the shared reuse index (reverse search's `shared_history`; db/analyses.ts). */
  shareReuseIndex: boolean;
}

const columns = { displayName: tenants.displayName, retentionDays: tenants.retentionDays, shareReuseIndex: tenants.shareReuseIndex };

export async function readTenantSettings(db: Db, tenantId: string): Promise<TenantSettings> {
  const row = await db.select(columns).from(tenants).where(eq(tenants.id, tenantId)).get();
  if (!row) throw ApiError.notFound("tenant");
  return row;
}

/**
 * Changes the given settings only (one UPDATE, with `audit`'s `settings.updated` entry in the same
 * batch); answers all of them as they now are.
 */
export async function updateTenantSettings(db: Db, tenantId: string, patch: Partial<TenantSettings>, audit?: AuditEntry, now = Date.now()): Promise<TenantSettings> {
  const set = {
    ...(patch.displayName !== undefined ? { displayName: patch.displayName } : {}),
    ...(patch.retentionDays !== undefined ? { retentionDays: patch.retentionDays } : {}),
    ...(patch.shareReuseIndex !== undefined ? { shareReuseIndex: patch.shareReuseIndex } : {}),
  };
  const update = db.update(tenants).set(set).where(eq(tenants.id, tenantId)).returning(columns);
  const [rows] = audit ? await db.batch([update, auditInsert(db, audit, now)]) : [await update];
  if (rows.length === 0) throw ApiError.notFound("tenant");
  return rows[0]!;
}
