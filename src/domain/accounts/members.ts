import { and, asc, eq, gt } from "drizzle-orm";
import { mayManage, type Role } from "../../auth/roles";
import type { Db } from "../../db/client";
import { memberships, users } from "../../db/schema";
import { issueCursor, readCursor } from "../../lib/page-cursor";
import { ApiError } from "../../lib/errors";
import { auditInsert, auditInsertWhile, type AuditEntry } from "../audit/log";
import { findPhone, type PhoneRow } from "./phones";

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
  const query = { purpose: CURSOR_PURPOSE, tenantId };
  const conditions = [eq(memberships.tenantId, tenantId)];
  if (page.cursor !== undefined) conditions.push(gt(memberships.userId, await readCursor(secret, query, page.cursor)));
  const rows = await db
    .select({ userId: users.id, email: users.email, phone: users.phone, displayName: users.displayName, role: memberships.role, joinedAt: memberships.createdAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(...conditions))
    .orderBy(asc(memberships.userId))
    .limit(page.limit + 1);
  const members = rows.slice(0, page.limit);
  const last = members[members.length - 1];
  if (rows.length > page.limit && last) return { members, nextCursor: await issueCursor(secret, query, last.userId) };
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

/**
 * The write and its audit row apply only while the membership still has the role the request
 * checked: placed before the change in the same batch, the condition makes the row say exactly what
 * the change did (and a concurrent identical request records nothing twice).
 */
function whileMember(tenantId: string, userId: string, role: Role) {
  return { sql: "EXISTS (SELECT 1 FROM memberships WHERE tenant_id = ? AND user_id = ? AND role = ?)", params: [tenantId, userId, role] };
}

/** A change checked against a role another request changed meanwhile is decided again, this many times. */
const MAX_ROUNDS = 3;
const KEPT_CHANGING = "The member's role kept changing while this request ran; try again.";

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
 * The UPDATE applies only to the role that was checked: when another request changed it meanwhile,
 * the change is checked again against the role the member has now.
 */
export async function changeRole(db: Db, change: MemberChange & { role: Role }): Promise<MemberView> {
  const now = change.now ?? Date.now();
  assertMayManage(change.actorRole, change.role);
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const member = await findMember(db, change.tenantId, change.userId);
    if (!member) throw ApiError.notFound("member");
    assertMayManage(change.actorRole, member.role);
    if (member.role === change.role) return member;
    const entry = change.audit(member);
    const d1 = db.$client;
    let updated: D1Result;
    try {
      [, updated] = (await d1.batch([
        auditInsertWhile(db, { ...entry, details: { ...entry.details, from: member.role, to: change.role } }, now, whileMember(change.tenantId, change.userId, member.role)),
        d1
          .prepare("UPDATE memberships SET role = ? WHERE tenant_id = ? AND user_id = ? AND role = ?")
          .bind(change.role, change.tenantId, change.userId, member.role),
      ])) as [D1Result, D1Result];
    } catch (err) {
      if (isLastOwner(err)) throw new ApiError("invalid_state", LAST_OWNER);
      throw err;
    }
    if (updated.meta.changes === 1) return { ...member, role: change.role };
  }
  throw new ApiError("invalid_state", KEPT_CHANGING);
}

/**
 * Removes a member (`member.removed`, with the role they had): their sessions for this tenant stop
 * working at once, and the tenant's registration of their phone goes too (`phone.removed`: a code
 * would otherwise sign them back in). Admins may remove members other than owners; the last owner cannot be removed.
 * Their account and their other memberships stay. The DELETE removes only the role that was checked:
 * a member promoted meanwhile (to owner, say, whom an admin may not remove) is checked again.
 */
export async function removeMember(db: Db, change: MemberChange): Promise<MemberView> {
  const now = change.now ?? Date.now();
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const member = await findMember(db, change.tenantId, change.userId);
    if (!member) throw ApiError.notFound("member");
    assertMayManage(change.actorRole, member.role);
    const entry = change.audit(member);
    const phone = member.phone ? await findPhone(db, change.tenantId, member.phone) : undefined;
    const d1 = db.$client;
    let removed: D1Result;
    try {
      [, removed] = (await d1.batch([
        auditInsertWhile(db, { ...entry, details: { ...entry.details, role: member.role } }, now, whileMember(change.tenantId, change.userId, member.role)),
        d1.prepare("DELETE FROM memberships WHERE tenant_id = ? AND user_id = ? AND role = ?").bind(change.tenantId, change.userId, member.role),
        ...(phone ? phoneGoesWith(db, entry, phone, change.userId, now) : []),
      ])) as [D1Result, D1Result];
    } catch (err) {
      if (isLastOwner(err)) throw new ApiError("invalid_state", LAST_OWNER);
      throw err;
    }
    if (removed.meta.changes === 1) return member;
  }
  throw new ApiError("invalid_state", KEPT_CHANGING);
}

/**
 * The tenant's registration of a removed member's phone goes with the membership, and only if the
 * membership went; recorded as `phone.removed` beside `member.removed`, as an operator's removal is.
 */
function phoneGoesWith(db: Db, removal: AuditEntry, phone: PhoneRow, userId: string, now: number): D1PreparedStatement[] {
  const d1 = db.$client;
  const memberGone = "EXISTS (SELECT 1 FROM tenant_phones WHERE id = ? AND tenant_id = ?) AND NOT EXISTS (SELECT 1 FROM memberships WHERE tenant_id = ? AND user_id = ?)";
  const entry: AuditEntry = { ...removal, action: "phone.removed", target: { type: "phone", id: phone.id, label: phone.phone }, details: { with_member: userId } };
  return [
    auditInsertWhile(db, entry, now, { sql: memberGone, params: [phone.id, phone.tenantId, phone.tenantId, userId] }),
    d1.prepare("DELETE FROM tenant_phones WHERE id = ? AND tenant_id = ? AND NOT EXISTS (SELECT 1 FROM memberships WHERE tenant_id = ? AND user_id = ?)").bind(phone.id, phone.tenantId, phone.tenantId, userId),
  ];
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

