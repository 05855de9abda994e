import { and, asc, eq, gt } from "drizzle-orm";
import { mayManage, type Role } from "../../auth/roles";
import type { Db } from "../../db/client";
import { memberships, tenantPhones, users } from "../../db/schema";
import { toStatement } from "../../db/statements";
import { signToken, verifyToken } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { auditInsert, auditInsertWhile, type AuditEntry } from "../audit/log";

/*
 * A tenant's members and their roles. A tenant always keeps an owner: the migration's triggers
 * abort any batch that would demote or remove the last one (409 `invalid_state` here), so two
 * owners demoting each other at once cannot leave none. Removing a member deletes the membership,
 * which is what the session check reads: their sessions for this tenant stop working at once.
 */

export interface MemberView {
  userId: string;
  email: string | null;
  phone: string | null;
  displayName: string | null;
  role: Role;
  joinedAt: number;
}

const CURSOR_PURPOSE = "members-cursor";

/** The tenant's members in user-id order (keyset on the user id). */
export async function listMembers(db: Db, secret: string, tenantId: string, page: { limit: number; cursor?: string }): Promise<{ members: MemberView[]; nextCursor?: string }> {
  const conditions = [eq(memberships.tenantId, tenantId)];
  if (page.cursor !== undefined) {
    const decoded = (await verifyToken(secret, CURSOR_PURPOSE, page.cursor)) as { after?: unknown } | null;
    if (!decoded || typeof decoded.after !== "string") throw ApiError.invalid({ cursor: "Invalid cursor: pass back the next_cursor of the previous page unchanged." });
    conditions.push(gt(memberships.userId, decoded.after));
  }
  const rows = await db
    .select({ userId: users.id, email: users.email, phone: users.phone, displayName: users.displayName, role: memberships.role, joinedAt: memberships.createdAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(...conditions))
    .orderBy(asc(memberships.userId))
    .limit(page.limit + 1);
  const members = rows.slice(0, page.limit);
  const last = members[members.length - 1];
  if (rows.length > page.limit && last) return { members, nextCursor: await signToken(secret, CURSOR_PURPOSE, { after: last.userId }) };
  return { members };
}

export async function findMember(db: Db, tenantId: string, userId: string): Promise<MemberView | undefined> {
  return db
    .select({ userId: users.id, email: users.email, phone: users.phone, displayName: users.displayName, role: memberships.role, joinedAt: memberships.createdAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId)))
    .get();
}

function isLastOwner(err: unknown): boolean {
  let current: unknown = err;
  while (current instanceof Error) {
    if (current.message.includes("last_owner")) return true;
    current = current.cause;
  }
  return false;
}

const LAST_OWNER = "A tenant keeps at least one owner: make another member owner first.";

function assertMayManage(actorRole: Role, role: Role): void {
  if (!mayManage(actorRole, role)) throw new ApiError("forbidden", "Only an owner may give the owner role or change, demote or remove an owner.");
}

/** The audit row goes in only while the membership is as the request saw it (a concurrent identical request records nothing twice). */
function whileMember(tenantId: string, userId: string, role: Role) {
  return { sql: "EXISTS (SELECT 1 FROM memberships WHERE tenant_id = ? AND user_id = ? AND role = ?)", params: [tenantId, userId, role] };
}

export interface MemberChange {
  tenantId: string;
  actorRole: Role;
  userId: string;
  audit: (target: MemberView) => AuditEntry;
  now?: number;
}

/**
 * Gives a member another role (recorded as `member.role_changed` with `from` and `to`). Admins may
 * change members other than owners and may not give the owner role; the last owner cannot be demoted.
 */
export async function changeRole(db: Db, change: MemberChange & { role: Role }): Promise<MemberView> {
  const now = change.now ?? Date.now();
  const member = await findMember(db, change.tenantId, change.userId);
  if (!member) throw ApiError.notFound("member");
  assertMayManage(change.actorRole, member.role);
  assertMayManage(change.actorRole, change.role);
  if (member.role === change.role) return member;
  const entry = change.audit(member);
  const d1 = db.$client;
  try {
    await d1.batch([
      auditInsertWhile(db, { ...entry, details: { ...entry.details, from: member.role, to: change.role } }, now, whileMember(change.tenantId, change.userId, member.role)),
      d1
        .prepare("UPDATE memberships SET role = ? WHERE tenant_id = ? AND user_id = ? AND role = ?")
        .bind(change.role, change.tenantId, change.userId, member.role),
    ]);
  } catch (err) {
    if (isLastOwner(err)) throw new ApiError("invalid_state", LAST_OWNER);
    throw err;
  }
  const after = await findMember(db, change.tenantId, change.userId);
  if (!after) throw ApiError.notFound("member");
  return after;
}

/**
 * Removes a member (`member.removed`): their sessions for this tenant stop working at once, and the
 * tenant's registration of their phone goes too (a code would otherwise sign them back in). Admins may
 * remove members other than owners; the last owner cannot be removed. Their account and their other
 * memberships stay.
 */
export async function removeMember(db: Db, change: MemberChange): Promise<MemberView> {
  const now = change.now ?? Date.now();
  const member = await findMember(db, change.tenantId, change.userId);
  if (!member) throw ApiError.notFound("member");
  assertMayManage(change.actorRole, member.role);
  const entry = change.audit(member);
  const d1 = db.$client;
  try {
    await d1.batch([
      auditInsertWhile(db, { ...entry, details: { ...entry.details, role: member.role } }, now, whileMember(change.tenantId, change.userId, member.role)),
      d1.prepare("DELETE FROM memberships WHERE tenant_id = ? AND user_id = ?").bind(change.tenantId, change.userId),
      ...(member.phone ? [toStatement(d1, db.delete(tenantPhones).where(and(eq(tenantPhones.tenantId, change.tenantId), eq(tenantPhones.phone, member.phone))))] : []),
    ]);
  } catch (err) {
    if (isLastOwner(err)) throw new ApiError("invalid_state", LAST_OWNER);
    throw err;
  }
  return member;
}

/**
 * "Sign out everywhere" for a tenant: every session for it issued up to now, of every member, is
 * void (their sessions for other tenants are not). Answers how many members it signed out.
 */
export async function endTenantSessions(db: Db, entry: AuditEntry, now = Date.now()): Promise<number> {
  const [signedOut] = await db.batch([
    db.update(memberships).set({ sessionsValidAfter: now }).where(eq(memberships.tenantId, entry.tenantId)).returning({ userId: memberships.userId }),
    auditInsert(db, entry, now),
  ]);
  return signedOut.length;
}

