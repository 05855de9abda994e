import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { auditLog, invitations, memberships, type users } from "../../db/schema";
import { insertRowWhere, toStatement } from "../../db/statements";
import { auditRow, type AuditClient } from "../audit/log";
import { joinedEntry } from "./entries";

/*
 * The second half of an invitation to an existing account (invitations.ts): the link only recorded
 * that its holder confirmed (`claimed_by` the account's user); the membership is added here, at a
 * sign-in that user made the ordinary way.
 */

/**
 * At an ordinary sign-in of `user`: each invitation they confirmed (and nobody revoked since) is
 * accepted, its membership added (a member already keeps their role) with `member.joined`, each in
 * one batch whose every row depends on this call's UPDATE. The tenant the sign-in lands in is not
 * changed here.
 */
export async function attachClaimedInvitations(db: Db, user: typeof users.$inferSelect, client: AuditClient, now = Date.now()): Promise<number> {
  const waiting = await db
    .select()
    .from(invitations)
    .where(and(eq(invitations.claimedBy, user.id), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)));
  let joined = 0;
  const d1 = db.$client;
  for (const invitation of waiting) {
    const spent = { sql: "EXISTS (SELECT 1 FROM invitations WHERE id = ? AND accepted_by = ? AND accepted_at = ?)", params: [invitation.id, user.id, now] };
    const joins = {
      sql: `${spent.sql} AND NOT EXISTS (SELECT 1 FROM memberships WHERE tenant_id = ? AND user_id = ?)`,
      params: [...spent.params, invitation.tenantId, user.id],
    };
    const [update] = await d1.batch([
      toStatement(
        d1,
        db
          .update(invitations)
          .set({ acceptedAt: now, acceptedBy: user.id })
          .where(and(eq(invitations.id, invitation.id), eq(invitations.claimedBy, user.id), isNull(invitations.acceptedAt), isNull(invitations.revokedAt))),
      ),
      insertRowWhere(d1, auditLog, auditRow(joinedEntry(user, invitation.tenantId, invitation.role, client, { via: "invitation", invitation_id: invitation.id }), now), joins),
      insertRowWhere(d1, memberships, { tenantId: invitation.tenantId, userId: user.id, role: invitation.role, createdAt: now, sessionsValidAfter: null }, joins),
    ]);
    if (update?.meta.changes === 1) joined += 1;
  }
  return joined;
}
