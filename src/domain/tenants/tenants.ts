import { eq, like } from "drizzle-orm";
import type { Db } from "../../db/client";
import { tenants } from "../../db/schema";
import { randomBase62 } from "../../lib/crypto";
import { newId } from "../../lib/ids";

export type TenantRow = typeof tenants.$inferSelect;

/** `Acme Insurance, Ltd.` → `acme-insurance-ltd`: the `{org}` of public template links. */
export function slugify(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  return slug || "org";
}

export function newWebhookSecret(): string {
  return `whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))}`;
}

/**
 * A new tenant row whose slug is free right now (`acme`, `acme-2`, …); not yet written, so callers
 * can insert it in a batch with other rows. Pass `randomSuffix` after losing a race for the slug.
 */
export async function planTenant(
  db: Db,
  input: { displayName: string; slug?: string; id?: string; now?: number; randomSuffix?: boolean },
): Promise<TenantRow> {
  const now = input.now ?? Date.now();
  const base = input.slug ?? slugify(input.displayName);
  let slug = base;
  if (input.randomSuffix) {
    slug = `${base}-${randomBase62(6).toLowerCase()}`;
  } else {
    const taken = new Set((await db.select({ slug: tenants.slug }).from(tenants).where(like(tenants.slug, `${base}%`))).map((r) => r.slug));
    for (let n = 2; taken.has(slug); n += 1) slug = `${base}-${n}`;
  }
  return {
    id: input.id ?? newId("tenant", now),
    slug,
    displayName: input.displayName,
    webhookSecret: newWebhookSecret(),
    webhookSecretsRetiring: null,
    retentionDays: null,
    shareReuseIndex: false,
    aiDetectionProvider: null,
    verifiedDomain: null,
    verifiedDomainToken: null,
    verifiedDomainAt: null,
    verifiedDomainConfirmedAt: null,
    verifiedDomainCheckedAt: null,
    createdAt: now,
  };
}

export function isUniqueViolation(err: unknown): boolean {
  return String(err).includes("UNIQUE") || String((err as { cause?: unknown })?.cause).includes("UNIQUE");
}

/** Creates a tenant with a unique slug derived from its name (`acme`, `acme-2`, …). */
export async function createTenant(db: Db, input: { displayName: string; slug?: string; id?: string; now?: number }): Promise<TenantRow> {
  const row = await planTenant(db, input);
  try {
    await db.insert(tenants).values(row);
    return row;
  } catch (err) {
    // Lost a race for the slug: take a random suffix instead of looping.
    if (!isUniqueViolation(err)) throw err;
    const retry = { ...(await planTenant(db, { ...input, randomSuffix: true })), id: row.id };
    await db.insert(tenants).values(retry);
    return retry;
  }
}

export async function findTenant(db: Db, id: string): Promise<TenantRow | undefined> {
  return db.select().from(tenants).where(eq(tenants.id, id)).get();
}

/** The tenant whose slug is the `{org}` of a public link. */
export async function findTenantBySlug(db: Db, slug: string): Promise<TenantRow | undefined> {
  return db.select().from(tenants).where(eq(tenants.slug, slug)).get();
}
