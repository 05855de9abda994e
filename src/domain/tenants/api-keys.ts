import { and, desc, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { mixedBatch } from "../../db/statements";
import { apiKeys } from "../../db/schema";
import { displayPrefix, generateApiKey, hashApiKey, type KeyEnvironment, type KeyScope } from "../../auth/api-keys";
import { newId } from "../../lib/ids";
import { auditInsert, auditInsertWhile, type AuditEntry } from "../audit/log";

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** Mints a key (with `audit(row)`'s `api_key.created` entry in the same batch); the plaintext is returned here once and never stored. */
export async function mintApiKey(
  db: Db,
  input: { tenantId: string; environment: KeyEnvironment; scope: KeyScope; name?: string; plaintext?: string; now?: number; audit?: (row: ApiKeyRow) => AuditEntry },
): Promise<{ row: ApiKeyRow; plaintext: string }> {
  const now = input.now ?? Date.now();
  const generated = generateApiKey(input.environment);
  const plaintext = input.plaintext ?? generated.plaintext;
  const row: ApiKeyRow = {
    id: newId("apiKey", now),
    tenantId: input.tenantId,
    environment: input.environment,
    scope: input.scope,
    keyHash: await hashApiKey(plaintext),
    keyPrefix: displayPrefix(plaintext),
    name: input.name ?? null,
    createdAt: now,
    lastUsedAt: null,
    revokedAt: null,
  };
  const insert = db.insert(apiKeys).values(row);
  if (input.audit) await db.batch([insert, auditInsert(db, input.audit(row), now)]);
  else await insert;
  return { row, plaintext };
}

export async function listApiKeys(db: Db, tenantId: string): Promise<ApiKeyRow[]> {
  return db.select().from(apiKeys).where(eq(apiKeys.tenantId, tenantId)).orderBy(desc(apiKeys.id));
}

/**
 * Revokes a key of this tenant, recording `audit`'s `api_key.revoked` only if this call revoked it
 * (a repeat, or a concurrent twin, records nothing); false when there is no such unrevoked key.
 */
export async function revokeApiKey(db: Db, tenantId: string, id: string, audit?: AuditEntry, now = Date.now()): Promise<boolean> {
  const update = db.update(apiKeys).set({ revokedAt: now }).where(and(eq(apiKeys.id, id), eq(apiKeys.tenantId, tenantId), isNull(apiKeys.revokedAt)));
  if (!audit) return (await update.run()).meta.changes === 1;
  const unrevoked = { sql: "EXISTS (SELECT 1 FROM api_keys WHERE id = ? AND tenant_id = ? AND revoked_at IS NULL)", params: [id, tenantId] };
  const [, result] = await mixedBatch(db.$client, [auditInsertWhile(db, audit, now, unrevoked), update]);
  return result?.meta.changes === 1;
}

export async function findApiKey(db: Db, tenantId: string, id: string): Promise<ApiKeyRow | undefined> {
  return db.select().from(apiKeys).where(and(eq(apiKeys.id, id), eq(apiKeys.tenantId, tenantId))).get();
}
