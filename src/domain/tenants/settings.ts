import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { tenants } from "../../db/schema";
import { ApiError } from "../../lib/errors";

export interface TenantSettings {
  /** Verifications created more than this many days ago are redacted daily; null keeps them. */
  retentionDays: number | null;
}

export async function readTenantSettings(db: Db, tenantId: string): Promise<TenantSettings> {
  const row = await db.select({ retentionDays: tenants.retentionDays }).from(tenants).where(eq(tenants.id, tenantId)).get();
  if (!row) throw ApiError.notFound("tenant");
  return row;
}

export async function updateTenantSettings(db: Db, tenantId: string, patch: TenantSettings): Promise<TenantSettings> {
  const rows = await db
    .update(tenants)
    .set({ retentionDays: patch.retentionDays })
    .where(eq(tenants.id, tenantId))
    .returning({ retentionDays: tenants.retentionDays });
  if (rows.length === 0) throw ApiError.notFound("tenant");
  return rows[0]!;
}
