import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { tenants, userIdentities, users } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import type { Identity } from "../../providers/identity";
import { isUniqueViolation, planTenant, type TenantRow } from "../tenants/tenants";

export type UserRow = typeof users.$inferSelect;


export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The user behind an identity. A first sign-in creates the user and, unless `joinTenantId` is given,
 * their own tenant (unique slug); the rows are written in one batch, so a failure leaves nothing.
 * An identity whose verified email belongs to an existing user is linked to that user.
 * With `joinTenantId` (a phone code issued for a tenant) the user must belong to that tenant.
 */
export async function signInIdentity(db: Db, identity: Identity, options: { joinTenantId?: string; now?: number } = {}): Promise<UserRow> {
  const now = options.now ?? Date.now();
  for (let attempt = 0; ; attempt += 1) {
    const existing = await findUserByIdentity(db, identity, now);
    if (existing) return checkTenant(existing, options.joinTenantId);
    try {
      return await createUser(db, identity, { ...options, now, randomSlug: attempt > 0 });
    } catch (err) {
      // A concurrent first sign-in (same identity or email) or a slug race: read again.
      if (!isUniqueViolation(err) || attempt >= 2) throw err;
    }
  }
}

function checkTenant(user: UserRow, joinTenantId: string | undefined): UserRow {
  if (joinTenantId !== undefined && user.tenantId !== joinTenantId) {
    throw new ApiError("forbidden", "This sign-in belongs to another tenant.");
  }
  return user;
}

async function findUserByIdentity(db: Db, identity: Identity, now: number): Promise<UserRow | undefined> {
  const linked = await db
    .select({ user: users })
    .from(userIdentities)
    .innerJoin(users, eq(users.id, userIdentities.userId))
    .where(and(eq(userIdentities.provider, identity.provider), eq(userIdentities.subject, identity.subject)))
    .get();
  if (linked) return linked.user;
  if (!identity.email) return undefined;
  const byEmail = await db.select().from(users).where(eq(users.email, normalizeEmail(identity.email))).get();
  if (!byEmail) return undefined;
  await db
    .insert(userIdentities)
    .values({ provider: identity.provider, subject: identity.subject, userId: byEmail.id, createdAt: now })
    .onConflictDoNothing();
  return byEmail;
}

async function createUser(
  db: Db,
  identity: Identity,
  options: { joinTenantId?: string; now: number; randomSlug: boolean },
): Promise<UserRow> {
  const email = identity.email ? normalizeEmail(identity.email) : null;
  const user: UserRow = {
    id: newId("user", options.now),
    tenantId: options.joinTenantId ?? "",
    email,
    phone: identity.phone ?? null,
    displayName: identity.displayName ?? null,
    createdAt: options.now,
    sessionsValidAfter: null,
  };
  const link = { provider: identity.provider, subject: identity.subject, userId: user.id, createdAt: options.now };
  if (options.joinTenantId !== undefined) {
    await db.batch([db.insert(users).values(user), db.insert(userIdentities).values(link)]);
    return user;
  }
  const tenant: TenantRow = await planTenant(db, {
    displayName: identity.displayName ?? email?.split("@")[0] ?? "My organisation",
    now: options.now,
    randomSuffix: options.randomSlug,
  });
  user.tenantId = tenant.id;
  await db.batch([db.insert(tenants).values(tenant), db.insert(users).values(user), db.insert(userIdentities).values(link)]);
  return user;
}

export async function findUser(db: Db, id: string): Promise<UserRow | undefined> {
  return db.select().from(users).where(eq(users.id, id)).get();
}
