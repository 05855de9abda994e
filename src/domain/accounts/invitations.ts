import { and, desc, eq, gt, isNull, lt, lte, type SQL } from "drizzle-orm";
import { mayManage, type Role } from "../../auth/roles";
import type { Db } from "../../db/client";
import { auditLog, invitations, memberships, tenants, userIdentities, users } from "../../db/schema";
import { insertRowWhere, toStatement } from "../../db/statements";
import { settings } from "../../env";
import { randomBase62, sha256Hex, signToken, verifyToken } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { emailTransport } from "../../providers/email";
import { sendOnce } from "../../providers/outbound";
import { auditInsert, auditRow, type AuditClient, type AuditEntry } from "../audit/log";
import { enforceLimit, INVITATION_EMAIL_LIMITS } from "../public-limits";
import { isUniqueViolation } from "../tenants/tenants";
import { findUserByIdentity, joinedEntry, normalizeEmail, signedInEntry, type SignedIn, type UserRow } from "./users";

/*
 * Invitations: an admin or owner asks someone to join the tenant with a role. The email carries a
 * single-use link (`ivt_` + 256 fresh bits, stored only as SHA-256) that works for 7 days; following
 * it shows a confirmation page, and only that page's same-origin POST spends it: the invitee is
 * signed in as the email's user (created if new, with no tenant of their own) and joins with the
 * role, keeping any other membership. A resend replaces the token (the old link stops working) and
 * restarts the 7 days. One open invitation per address and tenant.
 */

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const TOKEN_PATTERN = /^ivt_[0-9A-Za-z]{43}$/;

export type InvitationRow = typeof invitations.$inferSelect;
export type InvitationStatus = "pending" | "expired" | "accepted" | "revoked";

export function invitationStatus(row: InvitationRow, now = Date.now()): InvitationStatus {
  if (row.acceptedAt !== null) return "accepted";
  if (row.revokedAt !== null) return "revoked";
  return row.expiresAt > now ? "pending" : "expired";
}

export function invitationUrl(env: Env, token: string): string {
  return `${settings(env).baseUrl}/v1/auth/invitation/${token}`;
}

function newToken(): string {
  return `ivt_${randomBase62(43)}`;
}

const ROLE_WORDS: Record<Role, string> = {
  owner: "an owner",
  admin: "an admin",
  reviewer: "a reviewer",
  viewer: "a viewer",
};

/** Stands in for the link in the stored copy of an invitation email outside local development. */
const REDACTED_LINK = "[invitation link removed: it is sent to the recipient only]";

function invitationEmail(tenantName: string, role: Role, inviter: string | null, link: string): string {
  const who = inviter ? `${inviter} invited you` : "You are invited";
  return `${who} to join ${tenantName} on the verification dashboard as ${ROLE_WORDS[role]}.\n\n${link}\n\nThe link works once, within 7 days. If you did not expect it, ignore this email.`;
}

async function sendInvitation(env: Env, db: Db, row: InvitationRow, token: string, inviter: string | null, now: number): Promise<void> {
  const tenant = await db.select({ name: tenants.displayName }).from(tenants).where(eq(tenants.id, row.tenantId)).get();
  const name = tenant?.name ?? "a team";
  await sendOnce(
    db,
    emailTransport(env),
    {
      dedupeKey: `invitation:${row.id}:${row.sendCount}`,
      channel: "email",
      recipient: row.email,
      subject: `Join ${name} on the verification dashboard`,
      body: invitationEmail(name, row.role, inviter, invitationUrl(env, token)),
      // As for sign-in links: only local development keeps the live link at rest (its outbox).
      ...(settings(env).isLocal ? {} : { storedBody: invitationEmail(name, row.role, inviter, REDACTED_LINK) }),
    },
    now,
  );
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
  if (open && open.expiresAt > now) throw new ApiError("invalid_state", "An invitation to this address is pending: resend or revoke it.");
  await enforceLimit(env, INVITATION_EMAIL_LIMITS.perTenant, inviter.tenantId);
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
      db.update(invitations).set({ revokedAt: now }).where(and(eq(invitations.tenantId, inviter.tenantId), eq(invitations.email, email), isNull(invitations.acceptedAt), isNull(invitations.revokedAt), lte(invitations.expiresAt, now))),
      db.insert(invitations).values(row),
      auditInsert(db, input.audit(row), now),
    ]);
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError("invalid_state", "An invitation to this address is pending: resend or revoke it.");
    throw err;
  }
  await sendInvitation(env, db, row, token, inviter.label, now);
  return row;
}

async function findInvitation(db: Db, tenantId: string, id: string): Promise<InvitationRow | undefined> {
  return db.select().from(invitations).where(and(eq(invitations.id, id), eq(invitations.tenantId, tenantId))).get();
}

function assertOpen(row: InvitationRow): void {
  if (row.acceptedAt !== null) throw new ApiError("invalid_state", "This invitation was accepted already.");
  if (row.revokedAt !== null) throw new ApiError("invalid_state", "This invitation was revoked.");
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
  assertMayInvite(input.inviter, row.role);
  await enforceLimit(env, INVITATION_EMAIL_LIMITS.perInvitation, row.id);
  await enforceLimit(env, INVITATION_EMAIL_LIMITS.perTenant, row.tenantId);
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
        .where(and(eq(invitations.id, row.id), eq(invitations.tokenHash, row.tokenHash), isNull(invitations.acceptedAt), isNull(invitations.revokedAt))),
    ),
  ]);
  if (updated?.meta.changes !== 1) throw new ApiError("invalid_state", "This invitation changed meanwhile (accepted, revoked or resent); reload it.");
  await sendInvitation(env, db, resent, token, input.inviter.label, now);
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

/** Open invitations (pending or expired, not accepted or revoked), newest first, keyset by id. */
export async function listInvitations(db: Db, secret: string, tenantId: string, page: { limit: number; cursor?: string }): Promise<{ rows: InvitationRow[]; nextCursor?: string }> {
  const conditions: SQL[] = [eq(invitations.tenantId, tenantId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)];
  if (page.cursor !== undefined) {
    const decoded = (await verifyToken(secret, CURSOR_PURPOSE, page.cursor)) as { before?: unknown } | null;
    if (!decoded || typeof decoded.before !== "string") throw ApiError.invalid({ cursor: "Invalid cursor: pass back the next_cursor of the previous page unchanged." });
    conditions.push(lt(invitations.id, decoded.before));
  }
  const rows = await db.select().from(invitations).where(and(...conditions)).orderBy(desc(invitations.id)).limit(page.limit + 1);
  const kept = rows.slice(0, page.limit);
  const last = kept[kept.length - 1];
  if (rows.length > page.limit && last) return { rows: kept, nextCursor: await signToken(secret, CURSOR_PURPOSE, { before: last.id }) };
  return { rows: kept };
}

/** What the invitation's page shows, while its link can still be used (open, unexpired); spends nothing. */
export async function peekInvitation(db: Db, token: string, now = Date.now()): Promise<{ invitation: InvitationRow; tenantName: string } | null> {
  if (!TOKEN_PATTERN.test(token)) return null;
  const found = await db
    .select({ invitation: invitations, tenantName: tenants.displayName })
    .from(invitations)
    .innerJoin(tenants, eq(tenants.id, invitations.tenantId))
    .where(eq(invitations.tokenHash, await sha256Hex(token)))
    .get();
  if (!found || invitationStatus(found.invitation, now) !== "pending") return null;
  return found;
}

/**
 * Spends the link and signs its invitee in, in one batch: the conditional UPDATE that marks the
 * invitation accepted (only if open, unexpired and this very token) comes first, and every other
 * row (the new user and their email identity, the membership, the default tenant, the audit entries
 * `member.joined` and `session.signed_in`) goes in only if that UPDATE was this batch's. Two clicks,
 * a revoke or a resend racing it: one wins whole, the others write nothing. Null when the link no
 * longer works. An invitee already a member keeps their role.
 */
export async function acceptInvitation(db: Db, token: string, client: AuditClient, now = Date.now()): Promise<SignedIn | null> {
  const peeked = await peekInvitation(db, token, now);
  if (!peeked) return null;
  const { invitation } = peeked;
  const identity = { provider: "email", subject: invitation.email, email: invitation.email };
  for (let attempt = 0; ; attempt += 1) {
    const existing = await findUserByIdentity(db, identity, now);
    const user: UserRow = existing ?? {
      id: newId("user", now),
      defaultTenantId: invitation.tenantId,
      email: invitation.email,
      phone: null,
      displayName: null,
      createdAt: now,
      sessionsValidAfter: null,
    };
    const membership = existing
      ? await db.select().from(memberships).where(and(eq(memberships.tenantId, invitation.tenantId), eq(memberships.userId, user.id))).get()
      : undefined;
    const spent = { sql: "EXISTS (SELECT 1 FROM invitations WHERE id = ? AND accepted_by = ? AND accepted_at = ?)", params: [invitation.id, user.id, now] };
    const d1 = db.$client;
    const statements: D1PreparedStatement[] = [
      toStatement(
        d1,
        db
          .update(invitations)
          .set({ acceptedAt: now, acceptedBy: user.id })
          .where(and(eq(invitations.id, invitation.id), eq(invitations.tokenHash, invitation.tokenHash), isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now))),
      ),
    ];
    if (!existing) {
      statements.push(insertRowWhere(d1, users, user, spent), insertRowWhere(d1, userIdentities, { ...identity, userId: user.id, createdAt: now }, spent));
    }
    if (!membership) {
      statements.push(
        insertRowWhere(d1, memberships, { tenantId: invitation.tenantId, userId: user.id, role: invitation.role, createdAt: now, sessionsValidAfter: null }, spent),
        insertRowWhere(d1, auditLog, auditRow(joinedEntry(user, invitation.tenantId, invitation.role, client, { via: "invitation", invitation_id: invitation.id }), now), spent),
      );
    }
    statements.push(
      d1.prepare(`UPDATE users SET default_tenant_id = ? WHERE id = ? AND ${spent.sql}`).bind(invitation.tenantId, user.id, ...spent.params),
      insertRowWhere(d1, auditLog, auditRow(signedInEntry(user, invitation.tenantId, { method: "invitation", client }), now), spent),
    );
    try {
      const [update] = await d1.batch(statements);
      // Another click, a revoke or a resend won (or the link expired since the peek).
      if (update?.meta.changes !== 1) return null;
    } catch (err) {
      // A first sign-in of the same address created the user meanwhile: read again.
      if (!isUniqueViolation(err) || attempt >= 2) throw err;
      continue;
    }
    return { user: { ...user, defaultTenantId: invitation.tenantId }, tenantId: invitation.tenantId, role: membership?.role ?? invitation.role };
  }
}
