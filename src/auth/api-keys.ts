import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../db/client";
import { apiKeys } from "../db/schema";
import { randomBase62, sha256Hex } from "../lib/crypto";

/** `pk_test_` or `pk_live_` followed by 43 base62 characters (256 bits of entropy). */
const KEY_PATTERN = /^pk_(test|live)_[0-9A-Za-z]{32,128}$/;
const SECRET_LENGTH = 43;

export type KeyEnvironment = "test" | "live";
export type KeyScope = "full" | "publishable";

export function generateApiKey(environment: KeyEnvironment): { plaintext: string; prefix: string } {
  const plaintext = `pk_${environment}_${randomBase62(SECRET_LENGTH)}`;
  return { plaintext, prefix: displayPrefix(plaintext) };
}

/** What operators see to tell keys apart: the environment prefix and the first four secret characters. */
export function displayPrefix(plaintext: string): string {
  return `${plaintext.slice(0, plaintext.indexOf("_", 3) + 5)}…`;
}

export function hashApiKey(plaintext: string): Promise<string> {
  return sha256Hex(plaintext);
}

export interface ResolvedKey {
  id: string;
  tenantId: string;
  scope: KeyScope;
  /** The operator's name for the key (null when unnamed): how the audit log names it. */
  name: string | null;
}

/**
 * Resolves a presented key to its tenant, or null for anything unusable: malformed, unknown,
 * revoked, or minted for the other environment. Callers answer all of these with the same 401.
 * The lookup is by SHA-256 of a 256-bit secret, so timing reveals nothing useful about stored keys.
 */
export async function resolveApiKey(db: Db, presented: string, accepted: KeyEnvironment): Promise<ResolvedKey | null> {
  const match = KEY_PATTERN.exec(presented);
  if (!match || match[1] !== accepted) return null;
  const keyHash = await hashApiKey(presented);
  const row = await db
    .select({ id: apiKeys.id, tenantId: apiKeys.tenantId, scope: apiKeys.scope, environment: apiKeys.environment, name: apiKeys.name })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
    .get();
  if (!row || row.environment !== accepted) return null;
  return { id: row.id, tenantId: row.tenantId, scope: row.scope, name: row.name };
}
