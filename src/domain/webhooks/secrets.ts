import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { tenants } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { auditInsert, recordAudit, type AuditEntry } from "../audit/log";
import { newWebhookSecret } from "../tenants/tenants";

/** How long the previous secret keeps signing after a rotation, so receivers can switch without loss. */
export const ROTATION_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface SecretView {
  secret: string;
  /** While set and in the future, the previous secret signs too. */
  previousExpiresAt: number | null;
}

function view(row: { webhookSecret: string; webhookSecretPreviousExpiresAt: number | null }, now: number): SecretView {
  const expires = row.webhookSecretPreviousExpiresAt;
  return { secret: row.webhookSecret, previousExpiresAt: expires !== null && expires > now ? expires : null };
}

/** The secret in plaintext: recorded first as `webhook_secret.revealed` (no record, no secret). */
export async function revealWebhookSecret(db: Db, tenantId: string, audit: AuditEntry, now = Date.now()): Promise<SecretView> {
  const row = await db.select().from(tenants).where(eq(tenants.id, tenantId)).get();
  if (!row) throw ApiError.notFound("tenant");
  await recordAudit(db, audit, now);
  return view(row, now);
}

/**
 * A new current secret; the old current one becomes the previous one for `ROTATION_WINDOW_MS`
 * (a rotation inside an open window retires the older previous secret at once).
 */
export async function rotateWebhookSecret(db: Db, tenantId: string, audit: AuditEntry, now = Date.now()): Promise<SecretView> {
  const secret = newWebhookSecret();
  const [rows] = await db.batch([
    db
      .update(tenants)
      .set({ webhookSecretPrevious: sql`${tenants.webhookSecret}`, webhookSecret: secret, webhookSecretPreviousExpiresAt: now + ROTATION_WINDOW_MS })
      .where(eq(tenants.id, tenantId))
      .returning(),
    auditInsert(db, audit, now),
  ]);
  const row = rows[0];
  if (!row) throw ApiError.notFound("tenant");
  return view(row, now);
}
