import type { Role } from "../../auth/roles";
import type { users } from "../../db/schema";
import type { AuditClient, AuditEntry } from "../audit/log";

/* The audit entries of people joining and signing in, shared by every way in (users.ts, invitations). */

type UserRow = typeof users.$inferSelect;

/** How a session was opened, as the audit log's `session.signed_in` says. */
export type SignInMethod = "oidc" | "dev" | "magic_link" | "phone_code" | "invitation" | "switch_tenant";

/** How the audit log names a user: their email, else their phone. */
export function userLabel(user: Pick<UserRow, "email" | "phone">): string | null {
  return user.email ?? user.phone ?? null;
}

export function signedInEntry(user: UserRow, tenantId: string, options: { method: SignInMethod; client: AuditClient }): AuditEntry {
  const actor = { type: "user" as const, id: user.id, label: userLabel(user) };
  return { tenantId, action: "session.signed_in", actor, target: { type: "user", id: user.id, label: actor.label }, details: { method: options.method }, client: options.client };
}

export function joinedEntry(user: UserRow, tenantId: string, role: Role, client: AuditClient, details: Record<string, unknown> = {}): AuditEntry {
  const actor = { type: "user" as const, id: user.id, label: userLabel(user) };
  return { tenantId, action: "member.joined", actor, target: { type: "user", id: user.id, label: actor.label }, details: { role, ...details }, client };
}
