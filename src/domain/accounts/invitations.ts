import { and, desc, eq, gt, isNull, lt, lte, type SQL } from "drizzle-orm";
import { mayManage, type Role } from "../../auth/roles";
import type { Db } from "../../db/client";
import { auditLog, invitations, memberships, tenants, userIdentities, users } from "../../db/schema";
import { insertRowWhere, toStatement } from "../../db/statements";
import { settings } from "../../env";
import { randomBase62, sha256Hex } from "../../lib/crypto";
import { issueCursor, readCursor } from "../../lib/page-cursor";
import { ApiError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { emailTransport } from "../../providers/email";
import { sendOnce } from "../../providers/outbound";
import { auditInsert, auditRow, type AuditClient, type AuditEntry } from "../audit/log";
import { ADDRESS_EMAIL_LIMITS, enforceLimit, INVITATION_EMAIL_LIMITS, limitKey } from "../public-limits";
import { isUniqueViolation } from "../tenants/tenants";
import { invitationEmail, invitationSubject, type InvitationNaming } from "./invitation-texts";
import { joinedEntry, mailboxOf, normalizeEmail, signedInEntry, type SignedIn, type UserRow } from "./users";

/*
 * Invitations: an admin or owner asks someone to join the tenant with a role. The email carries a
 * single-use link (`ivt_` + 256 fresh bits, stored only as SHA-256) that works for 7 days; following
 * it shows a confirmation page, and only that page's same-origin POST spends it. For an address with
 * no account, that creates the user (with no tenant of their own), adds the membership and signs
 * them in. For an address that already has an account, the link alone never signs anyone in (it
 * would sign in past that account's own sign-in, e.g. its single sign-on): the invitation is marked
 * claimed by that user, and their next ordinary sign-in adds the membership, without moving the
 * tenant they land in. A resend replaces the token (the old link stops working) and restarts the 7
 * days. One open invitation per address and tenant. The email's words are the service's
 * (invitation-texts.ts), and each one sent counts against the tenant's hourly and daily allowances.
 */

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const TOKEN_PATTERN = /^ivt_[0-9A-Za-z]{43}$/;

export type InvitationRow = typeof invitations.$inferSelect;
export type InvitationStatus = "pending" | "expired" | "awaiting_sign_in" | "accepted" | "revoked";

export function invitationStatus(row: InvitationRow, now = Date.now()): InvitationStatus {
  if (row.acceptedAt !== null) return "accepted";
  if (row.revokedAt !== null) return "revoked";
  // Confirmed within its 7 days by an existing account: it waits for that sign-in, whenever it comes.
  if (row.claimedAt !== null) return "awaiting_sign_in";
  return row.expiresAt > now ? "pending" : "expired";
}

export function invitationUrl(env: Env, token: string): string {
  return `${settings(env).baseUrl}/v1/auth/invitation/${token}`;
}

function newToken(): string {
  return `ivt_${randomBase62(43)}`;
}

/** Stands in for the link in the stored copy of an invitation email outside local development. */
const REDACTED_LINK = "[invitation link removed: it is sent to the recipient only]";

/** How an invitation names its tenant: the domain it proved, else the inviter's email address. */
async function namingOf(db: Db, tenantId: string, inviterId: string): Promise<InvitationNaming> {
  const [tenant, inviter] = await db.batch([
    db.select({ domain: tenants.verifiedDomain }).from(tenants).where(eq(tenants.id, tenantId)),
    db.select({ email: users.email }).from(users).where(eq(users.id, inviterId)),
  ]);
  return { verifiedDomain: tenant[0]?.domain ?? null, inviterEmail: inviter[0]?.email ?? null };
}

async function sendInvitation(env: Env, db: Db, row: InvitationRow, token: string, now: number): Promise<void> {
  const naming = await namingOf(db, row.tenantId, row.invitedBy);
  await sendOnce(
    db,
    emailTransport(env),
    {
      dedupeKey: `invitation:${row.id}:${row.sendCount}`,
      channel: "email",
      recipient: row.email,
      subject: invitationSubject(naming),
      body: invitationEmail(naming, row.role, invitationUrl(env, token)),
      // As for sign-in links: only local development keeps the live link at rest (its outbox).
      ...(settings(env).isLocal ? {} : { storedBody: invitationEmail(naming, row.role, REDACTED_LINK) }),
    },
    now,
  );
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The counters of one mailbox's invitation emails (`mailboxOf`), over every tenant. */
export function invitationAddressLimitKeys(email: string): string[] {
  return [ADDRESS_EMAIL_LIMITS.invitationHourly, ADDRESS_EMAIL_LIMITS.invitationDaily].map((rule) => limitKey(rule, mailboxOf(email)));
}

/**
 * Counts one invitation email against the tenant's allowances, smallest first: a tenant less than a
 * day old has its own small daily one, every tenant a daily and an hourly one; then against the
 * address's own, whichever tenant invites it (ADDRESS_EMAIL_LIMITS). 429 with Retry-After beyond
 * any, before anything is written.
 */
async function reserveInvitationEmail(env: Env, db: Db, tenantId: string, email: string, now: number): Promise<void> {
  const tenant = await db.select({ createdAt: tenants.createdAt }).from(tenants).where(eq(tenants.id, tenantId)).get();
  if (!tenant) throw ApiError.notFound("tenant");
  if (now - tenant.createdAt < DAY_MS) await enforceLimit(env, INVITATION_EMAIL_LIMITS.newTenantDaily, tenantId);
  await enforceLimit(env, INVITATION_EMAIL_LIMITS.perTenantDaily, tenantId);
  await enforceLimit(env, INVITATION_EMAIL_LIMITS.perTenant, tenantId);
  // Last: a tenant past its own allowance cannot spend the address's for everyone else.
  await enforceLimit(env, ADDRESS_EMAIL_LIMITS.invitationHourly, mailboxOf(email));
  await enforceLimit(env, ADDRESS_EMAIL_LIMITS.invitationDaily, mailboxOf(email));
}

export interface Inviter {
  tenantId: string;
  userId: string;
  role: Role;
  label: string | null;
}

function assertMayInvite(inviter: Inviter, role: Role): void {
  if (!mayManage(inviter.role, role)) throw new ApiError("forbidden", "Only an owner may invite an owner or act on an owner's invitation.");
}

/**
 * Invites `email` to the inviter's tenant as `role` (`member.invited`) and sends the email. A member
 * already is 409; so is an address with a pending invitation (resend or revoke it); an expired one
 * is revoked in the same batch and replaced.
 */
export async function createInvitation(
  env: Env,
  db: Db,
  input: { inviter: Inviter; email: string; role: Role; audit: (row: InvitationRow) => AuditEntry; now?: number },
): Promise<InvitationRow> {
  const now = input.now ?? Date.now();
  const { inviter } = input;
  const email = normalizeEmail(input.email);
  assertMayInvite(inviter, input.role);
  const member = await db
    .select({ userId: users.id })
    .from(users)
    .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.tenantId, inviter.tenantId)))
    .where(eq(users.email, email))
    .get();
  if (member) throw new ApiError("invalid_state", "This address already belongs to a member of this tenant.");
  const open = await db
    .select()
    .from(invitations)
    .where(and(eq(invitations.tenantId, inviter.tenantId), eq(invitations.email, email), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)))
    .get();
  if (open && open.claimedAt !== null) throw new ApiError("invalid_state", "This address confirmed an invitation already: the membership is added when that person next signs in (or revoke it).");
  if (open && open.expiresAt > now) throw new ApiError("invalid_state", "An invitation to this address is pending: resend or revoke it.");
  await reserveInvitationEmail(env, db, inviter.tenantId, email, now);
  const token = newToken();
  const row: InvitationRow = {
    id: newId("invitation", now),
    tenantId: inviter.tenantId,
    email,
    role: input.role,
    tokenHash: await sha256Hex(token),
    invitedBy: inviter.userId,
    createdAt: now,
    expiresAt: now + INVITATION_TTL_MS,
    sentAt: now,
    sendCount: 1,
    acceptedAt: null,
    acceptedBy: null,
    revokedAt: null,
    claimedAt: null,
    claimedBy: null,
  };
  try {
    await db.batch([
      // The expired invitation it replaces (still open, so it would hold the address's unique slot).
      db
        .update(invitations)
        .set({ revokedAt: now })
        .where(and(eq(invitations.tenantId, inviter.tenantId), eq(invitations.email, email), isNull(invitations.acceptedAt), isNull(invitations.revokedAt), isNull(invitations.claimedAt), lte(invitations.expiresAt, now))),
      db.insert(invitations).values(row),
      auditInsert(db, input.audit(row), now),
    ]);
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError("invalid_state", "An invitation to this address is pending: resend or revoke it.");
    throw err;
  }
  await sendInvitation(env, db, row, token, now);
  return row;
}

async function findInvitation(db: Db, tenantId: string, id: string): Promise<InvitationRow | undefined> {
  return db.select().from(invitations).where(and(eq(invitations.id, id), eq(invitations.tenantId, tenantId))).get();
}

function assertOpen(row: InvitationRow): void {
  if (row.acceptedAt !== null) throw new ApiError("invalid_state", "This invitation was accepted already.");
  if (row.revokedAt !== null) throw new ApiError("invalid_state", "This invitation was revoked.");
}

function assertUnclaimed(row: InvitationRow): void {
  if (row.claimedAt !== null) throw new ApiError("invalid_state", "The invitee confirmed this invitation already: the membership is added when they next sign in.");
}

/** The audit row goes in only while the invitation is still open with the token the request saw. */
function whileOpen(id: string, tokenHash: string) {
  return { sql: "EXISTS (SELECT 1 FROM invitations WHERE id = ? AND token_hash = ? AND accepted_at IS NULL AND revoked_at IS NULL)", params: [id, tokenHash] };
}

/**
 * Sends an open invitation again (`invitation.resent`): a new link (the previous one stops working),
 * valid 7 days from now. At most 5 a hour per invitation.
 */
export async function resendInvitation(
  env: Env,
  db: Db,
  input: { inviter: Inviter; id: string; audit: (row: InvitationRow) => AuditEntry; now?: number },
): Promise<InvitationRow> {
  const now = input.now ?? Date.now();
  const row = await findInvitation(db, input.inviter.tenantId, input.id);
  if (!row) throw ApiError.notFound("invitation");
  assertOpen(row);
  assertUnclaimed(row);
  assertMayInvite(input.inviter, row.role);
  await enforceLimit(env, INVITATION_EMAIL_LIMITS.perInvitation, row.id);
  await reserveInvitationEmail(env, db, row.tenantId, row.email, now);
  const token = newToken();
  const tokenHash = await sha256Hex(token);
  const resent: InvitationRow = { ...row, tokenHash, expiresAt: now + INVITATION_TTL_MS, sentAt: now, sendCount: row.sendCount + 1, invitedBy: input.inviter.userId };
  const d1 = db.$client;
  const [, updated] = await d1.batch([
    insertRowWhere(d1, auditLog, auditRow(input.audit(resent), now), whileOpen(row.id, row.tokenHash)),
    toStatement(
      d1,
      db
        .update(invitations)
        .set({ tokenHash, expiresAt: resent.expiresAt, sentAt: now, sendCount: resent.sendCount, invitedBy: resent.invitedBy })
        .where(and(eq(invitations.id, row.id), eq(invitations.tokenHash, row.tokenHash), isNull(invitations.acceptedAt), isNull(invitations.revokedAt), isNull(invitations.claimedAt))),
    ),
  ]);
  if (updated?.meta.changes !== 1) throw new ApiError("invalid_state", "This invitation changed meanwhile (accepted, confirmed, revoked or resent); reload it.");
  await sendInvitation(env, db, resent, token, now);
  return resent;
}

/** Revokes an open invitation (`invitation.revoked`): its link stops working. Revoking again answers the same. */
export async function revokeInvitation(
  db: Db,
  input: { inviter: Inviter; id: string; audit: (row: InvitationRow) => AuditEntry; now?: number },
): Promise<InvitationRow> {
  const now = input.now ?? Date.now();
  const row = await findInvitation(db, input.inviter.tenantId, input.id);
  if (!row) throw ApiError.notFound("invitation");
  if (row.revokedAt !== null) return row;
  if (row.acceptedAt !== null) throw new ApiError("invalid_state", "This invitation was accepted already: remove the member instead.");
  assertMayInvite(input.inviter, row.role);
  const d1 = db.$client;
  await d1.batch([
    insertRowWhere(d1, auditLog, auditRow(input.audit(row), now), whileOpen(row.id, row.tokenHash)),
    toStatement(d1, db.update(invitations).set({ revokedAt: now }).where(and(eq(invitations.id, row.id), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)))),
  ]);
  const after = await findInvitation(db, input.inviter.tenantId, input.id);
  if (!after || after.revokedAt === null) throw new ApiError("invalid_state", "This invitation was accepted meanwhile: remove the member instead.");
  return after;
}

const CURSOR_PURPOSE = "invitations-cursor";

/** Open invitations (pending, expired or awaiting the invitee's sign-in; not accepted or revoked), newest first, keyset by id. */
export async function listInvitations(db: Db, secret: string, tenantId: string, page: { limit: number; cursor?: string }): Promise<{ rows: InvitationRow[]; nextCursor?: string }> {
  const query = { purpose: CURSOR_PURPOSE, tenantId };
  const conditions: SQL[] = [eq(invitations.tenantId, tenantId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)];
  if (page.cursor !== undefined) conditions.push(lt(invitations.id, await readCursor(secret, query, page.cursor)));
  const rows = await db.select().from(invitations).where(and(...conditions)).orderBy(desc(invitations.id)).limit(page.limit + 1);
  const kept = rows.slice(0, page.limit);
  const last = kept[kept.length - 1];
  if (rows.length > page.limit && last) return { rows: kept, nextCursor: await issueCursor(secret, query, last.id) };
  return { rows: kept };
}

/** What the invitation's page shows, while its link can still be used (open, unexpired, unconfirmed); spends nothing. */
export async function peekInvitation(db: Db, token: string, now = Date.now()): Promise<{ invitation: InvitationRow; naming: InvitationNaming; existingAccount: boolean } | null> {
  if (!TOKEN_PATTERN.test(token)) return null;
  const found = await db
    .select({ invitation: invitations, verifiedDomain: tenants.verifiedDomain, inviterEmail: users.email })
    .from(invitations)
    .innerJoin(tenants, eq(tenants.id, invitations.tenantId))
    .leftJoin(users, eq(users.id, invitations.invitedBy))
    .where(eq(invitations.tokenHash, await sha256Hex(token)))
    .get();
  if (!found || invitationStatus(found.invitation, now) !== "pending") return null;
  const account = await db.select({ id: users.id }).from(users).where(eq(users.email, found.invitation.email)).get();
  return { invitation: found.invitation, naming: { verifiedDomain: found.verifiedDomain, inviterEmail: found.inviterEmail }, existingAccount: account !== undefined };
}

/**
 * What following the link and confirming did: a new account signed in, or an existing account's
 * invitation now waiting for that person's ordinary sign-in. Null when the link no longer works.
 */
export type Accepted = { kind: "signed_in"; signedIn: SignedIn } | { kind: "awaiting_sign_in"; invitation: InvitationRow };

/** The conditional UPDATE that spends the link (only while open, unexpired, unconfirmed and with this very token). */
function spendWhere(invitation: InvitationRow, now: number) {
  return and(
    eq(invitations.id, invitation.id),
    eq(invitations.tokenHash, invitation.tokenHash),
    isNull(invitations.acceptedAt),
    isNull(invitations.revokedAt),
    isNull(invitations.claimedAt),
    gt(invitations.expiresAt, now),
  );
}

/**
 * Spends the link. For an address without an account, in one batch: the conditional UPDATE that
 * marks the invitation accepted comes first, and every other row (the new user and their email
 * identity, the membership, the audit entries `member.joined` and `session.signed_in`) goes in only
 * if that UPDATE was this batch's. For an address with an account, only the claim: the invitation
 * waits for that user's next ordinary sign-in (`attachClaimedInvitations`), and no session is made
 * here. Two clicks, a revoke or a resend racing it: one wins whole, the others write nothing.
 */
export async function acceptInvitation(db: Db, token: string, client: AuditClient, now = Date.now()): Promise<Accepted | null> {
  const peeked = await peekInvitation(db, token, now);
  if (!peeked) return null;
  const { invitation } = peeked;
  const identity = { provider: "email", subject: invitation.email, email: invitation.email };
  for (let attempt = 0; ; attempt += 1) {
    const existing = await db.select().from(users).where(eq(users.email, invitation.email)).get();
    if (existing) {
      const claimed = await db.update(invitations).set({ claimedAt: now, claimedBy: existing.id }).where(spendWhere(invitation, now)).run();
      if (claimed.meta.changes !== 1) return null;
      return { kind: "awaiting_sign_in", invitation: { ...invitation, claimedAt: now, claimedBy: existing.id } };
    }
    const user: UserRow = {
      id: newId("user", now),
      defaultTenantId: invitation.tenantId,
      email: invitation.email,
      phone: null,
      displayName: null,
      createdAt: now,
      sessionsValidAfter: null,
    };
    const spent = { sql: "EXISTS (SELECT 1 FROM invitations WHERE id = ? AND accepted_by = ? AND accepted_at = ?)", params: [invitation.id, user.id, now] };
    const d1 = db.$client;
    const statements: D1PreparedStatement[] = [
      toStatement(d1, db.update(invitations).set({ acceptedAt: now, acceptedBy: user.id }).where(spendWhere(invitation, now))),
      insertRowWhere(d1, users, user, spent),
      insertRowWhere(d1, userIdentities, { ...identity, userId: user.id, createdAt: now }, spent),
      insertRowWhere(d1, memberships, { tenantId: invitation.tenantId, userId: user.id, role: invitation.role, createdAt: now, sessionsValidAfter: null }, spent),
      insertRowWhere(d1, auditLog, auditRow(joinedEntry(user, invitation.tenantId, invitation.role, client, { via: "invitation", invitation_id: invitation.id }), now), spent),
      insertRowWhere(d1, auditLog, auditRow(signedInEntry(user, invitation.tenantId, { method: "invitation", client }), now), spent),
    ];
    try {
      const [update] = await d1.batch(statements);
      // Another click, a revoke or a resend won (or the link expired since the peek).
      if (update?.meta.changes !== 1) return null;
    } catch (err) {
      // A first sign-in of the same address created the user meanwhile: read again (then it is an existing account).
      if (!isUniqueViolation(err) || attempt >= 2) throw err;
      continue;
    }
    return { kind: "signed_in", signedIn: { user, tenantId: invitation.tenantId, role: invitation.role } };
  }
}
