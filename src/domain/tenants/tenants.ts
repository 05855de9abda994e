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

/** Creates a tenant with a unique slug derived from its name (`acme`, `acme-2`, …). */
export async function createTenant(db: Db, input: { displayName: string; slug?: string; id?: string; now?: number }): Promise<TenantRow> {
  const now = input.now ?? Date.now();
  const base = input.slug ?? slugify(input.displayName);
  const taken = new Set((await db.select({ slug: tenants.slug }).from(tenants).where(like(tenants.slug, `${base}%`))).map((r) => r.slug));
  let slug = base;
  for (let n = 2; taken.has(slug); n += 1) slug = `${base}-${n}`;
  const row: TenantRow = {
    id: input.id ?? newId("tenant", now),
    slug,
    displayName: input.displayName,
    webhookSecret: newWebhookSecret(),
    webhookSecretPrevious: null,
    webhookSecretPreviousExpiresAt: null,
    createdAt: now,
  };
  try {
    await db.insert(tenants).values(row);
  } catch (err) {
    // Lost a race for the slug: take a random suffix instead of looping.
    if (!String(err).includes("UNIQUE")) throw err;
    row.slug = `${base}-${randomBase62(6).toLowerCase()}`;
    await db.insert(tenants).values(row);
  }
  return row;
}

export async function findTenant(db: Db, id: string): Promise<TenantRow | undefined> {
  return db.select().from(tenants).where(eq(tenants.id, id)).get();
}
