import { and, desc, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { apiKeys } from "../../db/schema";
import { displayPrefix, generateApiKey, hashApiKey, type KeyEnvironment, type KeyScope } from "../../auth/api-keys";
import { newId } from "../../lib/ids";

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** Mints a key; the plaintext is returned here once and never stored. */
export async function mintApiKey(
  db: Db,
  input: { tenantId: string; environment: KeyEnvironment; scope: KeyScope; name?: string; plaintext?: string; now?: number },
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
  await db.insert(apiKeys).values(row);
  return { row, plaintext };
}

export async function listApiKeys(db: Db, tenantId: string): Promise<ApiKeyRow[]> {
  return db.select().from(apiKeys).where(eq(apiKeys.tenantId, tenantId)).orderBy(desc(apiKeys.id));
}

/** Revokes a key of this tenant; false when there is no such (unrevoked) key. */
export async function revokeApiKey(db: Db, tenantId: string, id: string, now = Date.now()): Promise<boolean> {
  const result = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.id, id), eq(apiKeys.tenantId, tenantId), isNull(apiKeys.revokedAt)))
    .run();
  return result.meta.changes === 1;
}

export async function findApiKey(db: Db, tenantId: string, id: string): Promise<ApiKeyRow | undefined> {
  return db.select().from(apiKeys).where(and(eq(apiKeys.id, id), eq(apiKeys.tenantId, tenantId))).get();
}
