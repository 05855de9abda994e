import { and, asc, eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Role } from "../../auth/roles";
import type { Db } from "../../db/client";
import { memberships, tenants, userIdentities, users } from "../../db/schema";
import { newId } from "../../lib/ids";
import type { Identity } from "../../providers/identity";
import { auditInsert, type AuditClient } from "../audit/log";
import { attachClaimedInvitations } from "./claimed-invitations";
import { joinedEntry, signedInEntry, type SignInMethod } from "./entries";
import { isUniqueViolation, planTenant, type TenantRow } from "../tenants/tenants";
import { oneLine } from "../../lib/text";

export type UserRow = typeof users.$inferSelect;
export type MembershipRow = typeof memberships.$inferSelect;

export type { SignInMethod } from "./entries";
export { joinedEntry, signedInEntry, userLabel } from "./entries";

/** A signed-in user and the tenant their session opens, with their role there. */
export interface SignedIn {
  user: UserRow;
  tenantId: string;
  role: Role;
}

export interface SignInOptions {
  method: SignInMethod;
  client: AuditClient;
  /** A tenant the sign-in joins (a phone code issued for it): the membership is added with `role` if missing. */
  join?: { tenantId: string; role: Role };
  now?: number;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Providers that deliver every dotted spelling of a local part to one mailbox. */
const DOT_BLIND_DOMAINS = new Set(["gmail.com", "googlemail.com"]);

/**
 * The mailbox an address reaches, for counting what is sent to it: its `+tag` dropped (every major
 * provider delivers `name+anything@` to `name@`), and the dots of a Gmail local part. Only for the
 * per-address mail caps (probe of 2026-12-06: `victim+1@…`, `victim+2@…` were counted apart); the
 * address itself is kept and used as given.
 */
export function mailboxOf(email: string): string {
  const normalized = normalizeEmail(email);
  const at = normalized.lastIndexOf("@");
  if (at <= 0) return normalized;
  const domain = normalized.slice(at + 1);
  let local = normalized.slice(0, at);
  const plus = local.indexOf("+");
  if (plus > 0) local = local.slice(0, plus);
  if (DOT_BLIND_DOMAINS.has(domain)) local = local.replaceAll(".", "") || local;
  return `${local}@${domain === "googlemail.com" ? "gmail.com" : domain}`;
}


/**
 * The user behind an identity and the tenant the session opens, recorded as `session.signed_in`
 * there. A first sign-in creates the user; an identity whose verified email belongs to an existing
 * user is linked to that user, and the invitations that user confirmed are joined first. The tenant is `join`'s when given (joining it if needed), else the
 * user's default tenant (the last one switched to) while they are a member of it, else their oldest
 * membership; a user who belongs to no tenant (a first sign-in, or one removed from every tenant)
 * gets a new tenant of their own, as its owner. Each path writes its rows in one batch.
 */
export async function signInIdentity(db: Db, identity: Identity, options: SignInOptions): Promise<SignedIn> {
  const now = options.now ?? Date.now();
  for (let attempt = 0; ; attempt += 1) {
    try {
      const existing = await findUserByIdentity(db, identity, now);
      if (existing) {
        // Invitations this person confirmed join now, at a sign-in of their own (domain/accounts/invitations.ts).
        await attachClaimedInvitations(db, existing, options.client, now);
        return await openTenant(db, existing, { ...options, now, randomSlug: attempt > 0 });
      }
      return await createUser(db, identity, { ...options, now, randomSlug: attempt > 0 });
    } catch (err) {
      // A concurrent first sign-in (same identity or email), a concurrent join, or a slug race: read again.
      if (!isUniqueViolation(err) || attempt >= 2) throw err;
    }
  }
}

/** The user an identity signs in as (linking it to the user of its verified email), if any. */
export async function findUserByIdentity(db: Db, identity: Identity, now: number): Promise<UserRow | undefined> {
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

type Batch = [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]];


/** A new tenant of the user's own, named after them, and their owner membership in it. */
async function ownTenant(db: Db, user: Pick<UserRow, "id" | "displayName" | "email">, now: number, randomSlug: boolean): Promise<{ tenant: TenantRow; membership: MembershipRow }> {
  const tenant = await planTenant(db, {
    // The name an identity provider gave is not input we validated: kept to one line like a typed one.
    displayName: (user.displayName !== null ? oneLine(user.displayName, 100) : "") || user.email?.split("@")[0] || "My organisation",
    now,
    randomSuffix: randomSlug,
  });
  return { tenant, membership: { tenantId: tenant.id, userId: user.id, role: "owner", createdAt: now, sessionsValidAfter: null } };
}

async function openTenant(db: Db, user: UserRow, options: SignInOptions & { now: number; randomSlug: boolean }): Promise<SignedIn> {
  const { now } = options;
  const mine = await membershipsOf(db, user.id);
  if (options.join) {
    const { tenantId, role } = options.join;
    const already = mine.find((m) => m.tenantId === tenantId);
    if (already) {
      await auditInsert(db, signedInEntry(user, tenantId, options), now).run();
      return { user, tenantId, role: already.role };
    }
    await db.batch([
      db.insert(memberships).values({ tenantId, userId: user.id, role, createdAt: now, sessionsValidAfter: null }),
      db.update(users).set({ defaultTenantId: tenantId }).where(eq(users.id, user.id)),
      auditInsert(db, joinedEntry(user, tenantId, role, options.client, { via: options.method }), now),
      auditInsert(db, signedInEntry(user, tenantId, options), now),
    ]);
    return { user: { ...user, defaultTenantId: tenantId }, tenantId, role };
  }
  const landing = mine.find((m) => m.tenantId === user.defaultTenantId) ?? mine[0];
  if (landing) {
    const statements: Batch = [auditInsert(db, signedInEntry(user, landing.tenantId, options), now)];
    if (landing.tenantId !== user.defaultTenantId) statements.push(db.update(users).set({ defaultTenantId: landing.tenantId }).where(eq(users.id, user.id)));
    await db.batch(statements);
    return { user: { ...user, defaultTenantId: landing.tenantId }, tenantId: landing.tenantId, role: landing.role };
  }
  const { tenant, membership } = await ownTenant(db, user, now, options.randomSlug);
  await db.batch([
    db.insert(tenants).values(tenant),
    db.insert(memberships).values(membership),
    db.update(users).set({ defaultTenantId: tenant.id }).where(eq(users.id, user.id)),
    auditInsert(db, signedInEntry(user, tenant.id, options), now),
  ]);
  return { user: { ...user, defaultTenantId: tenant.id }, tenantId: tenant.id, role: "owner" };
}

async function createUser(db: Db, identity: Identity, options: SignInOptions & { now: number; randomSlug: boolean }): Promise<SignedIn> {
  const { now } = options;
  const email = identity.email ? normalizeEmail(identity.email) : null;
  const user: UserRow = {
    id: newId("user", now),
    defaultTenantId: options.join?.tenantId ?? "",
    email,
    phone: identity.phone ?? null,
    displayName: identity.displayName ?? null,
    createdAt: now,
    sessionsValidAfter: null,
  };
  const link = { provider: identity.provider, subject: identity.subject, userId: user.id, createdAt: now };
  if (options.join) {
    const { tenantId, role } = options.join;
    await db.batch([
      db.insert(users).values(user),
      db.insert(userIdentities).values(link),
      db.insert(memberships).values({ tenantId, userId: user.id, role, createdAt: now, sessionsValidAfter: null }),
      auditInsert(db, joinedEntry(user, tenantId, role, options.client, { via: options.method }), now),
      auditInsert(db, signedInEntry(user, tenantId, options), now),
    ]);
    return { user, tenantId, role };
  }
  const { tenant, membership } = await ownTenant(db, user, now, options.randomSlug);
  user.defaultTenantId = tenant.id;
  await db.batch([
    db.insert(tenants).values(tenant),
    db.insert(users).values(user),
    db.insert(userIdentities).values(link),
    db.insert(memberships).values(membership),
    auditInsert(db, signedInEntry(user, tenant.id, options), now),
  ]);
  return { user, tenantId: tenant.id, role: "owner" };
}

export async function findUser(db: Db, id: string): Promise<UserRow | undefined> {
  return db.select().from(users).where(eq(users.id, id)).get();
}

/** A user's memberships, oldest first. */
export async function membershipsOf(db: Db, userId: string): Promise<MembershipRow[]> {
  return db.select().from(memberships).where(eq(memberships.userId, userId)).orderBy(asc(memberships.createdAt), asc(memberships.tenantId));
}

/**
 * Opens another of the user's tenants in a new session (`POST /v1/auth/switch-tenant`): it becomes
 * their default tenant, and the switch is recorded as `session.signed_in` there. Null when the user
 * is not a member of it.
 */
export async function switchTenant(db: Db, user: UserRow, tenantId: string, client: AuditClient, now = Date.now()): Promise<SignedIn | null> {
  const membership = await db
    .select()
    .from(memberships)
    .where(and(eq(memberships.userId, user.id), eq(memberships.tenantId, tenantId)))
    .get();
  if (!membership) return null;
  await db.batch([
    db.update(users).set({ defaultTenantId: tenantId }).where(eq(users.id, user.id)),
    auditInsert(db, signedInEntry(user, tenantId, { method: "switch_tenant", client }), now),
  ]);
  return { user: { ...user, defaultTenantId: tenantId }, tenantId, role: membership.role };
}
