import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { tenants, type RetiringSecret } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { auditInsertWhile, recordAudit, type AuditEntry } from "../audit/log";
import { mixedBatch } from "../../db/statements";
import { stillSigning } from "./signing";
import { newWebhookSecret } from "../tenants/tenants";

/** How long a secret rotated out keeps signing, so receivers can switch without loss. */
export const ROTATION_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * How many secrets rotated out may sign at once (each inside its own window). A rotation beyond is
 * 429 until the oldest window closes: every delivery carries one signature per signing secret.
 */
export const MAX_RETIRING_SECRETS = 3;

export interface SecretView {
  secret: string;
  /** While set, secrets rotated out sign too, the last of them until then. */
  previousExpiresAt: number | null;
}

function view(row: { webhookSecret: string; webhookSecretsRetiring: RetiringSecret[] | null }, now: number): SecretView {
  const live = stillSigning(row.webhookSecretsRetiring, now);
  return { secret: row.webhookSecret, previousExpiresAt: live.length > 0 ? Math.max(...live.map((s) => s.expires_at)) : null };
}

/** The secret in plaintext: recorded first as `webhook_secret.revealed` (no record, no secret). */
export async function revealWebhookSecret(db: Db, tenantId: string, audit: AuditEntry, now = Date.now()): Promise<SecretView> {
  const row = await db.select().from(tenants).where(eq(tenants.id, tenantId)).get();
  if (!row) throw ApiError.notFound("tenant");
  await recordAudit(db, audit, now);
  return view(row, now);
}

/** Rotations racing each other are decided again this many times. */
const MAX_ROUNDS = 3;

/**
 * A new current secret; the current one is rotated out and signs for `ROTATION_WINDOW_MS` more,
 * beside those rotated out earlier whose windows are still open: a second rotation (a retry after a
 * timeout, say) never ends the window a first one promised. The update is a compare-and-swap on the
 * current secret, so two racing rotations each rotate out what they saw.
 */
export async function rotateWebhookSecret(db: Db, tenantId: string, audit: AuditEntry, now = Date.now()): Promise<SecretView> {
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const row = await db.select().from(tenants).where(eq(tenants.id, tenantId)).get();
    if (!row) throw ApiError.notFound("tenant");
    const live = stillSigning(row.webhookSecretsRetiring, now);
    if (live.length >= MAX_RETIRING_SECRETS) {
      const frees = Math.min(...live.map((s) => s.expires_at));
      throw new ApiError("too_many_requests", `${MAX_RETIRING_SECRETS} secrets rotated out still sign (each for 24 h after its rotation); rotate again once the oldest stops, at ${new Date(frees).toISOString()}.`, {
        headers: { "Retry-After": String(Math.max(1, Math.ceil((frees - now) / 1000))) },
      });
    }
    const secret = newWebhookSecret();
    const retiring: RetiringSecret[] = [{ secret: row.webhookSecret, expires_at: now + ROTATION_WINDOW_MS }, ...live];
    const unchanged = and(eq(tenants.id, tenantId), eq(tenants.webhookSecret, row.webhookSecret));
    const [, updated] = await mixedBatch(db.$client, [
      auditInsertWhile(db, audit, now, { sql: "EXISTS (SELECT 1 FROM tenants WHERE id = ? AND webhook_secret = ?)", params: [tenantId, row.webhookSecret] }),
      db.update(tenants).set({ webhookSecret: secret, webhookSecretsRetiring: retiring }).where(unchanged),
    ]);
    if (updated?.meta.changes === 1) return view({ webhookSecret: secret, webhookSecretsRetiring: retiring }, now);
  }
  throw new ApiError("invalid_state", "The webhook secret kept changing while this request ran; read it, then rotate again if you still need to.");
}
