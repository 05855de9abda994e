import type { Role } from "./principal";

export type { Role };

/*
 * What each role of a tenant's member may do (every session route names the least role it needs,
 * auth/access.ts; the document carries it as `x-required-role`):
 *
 * - viewer: read only: lists, details, photos, timelines, deliveries, templates, settings, members.
 * - reviewer: and create verifications, review, finalize.
 * - admin: and members other than owners, invitations, API keys, webhooks and their secret,
 *   settings, templates, bot phones, redaction, the audit log.
 * - owner: everything, including owners (grant, demote, remove).
 *
 * API keys are not members: they keep their scopes (full, publishable).
 */

/** Least to most: each role may do everything the ones before it may. */
export const ROLES = ["viewer", "reviewer", "admin", "owner"] as const satisfies readonly Role[];

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

export function hasRole(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

/** The 403 message of a session whose role is below what a route needs: it names the role. */
export function roleRefusal(needed: Role): string {
  return needed === "owner" ? "This needs the owner role." : `This needs the ${needed} role or higher.`;
}

/**
 * Whether a member with `actor`'s role may give `role` to someone, or change or remove a member who
 * holds `role`: an owner may do anything; an admin everything but owners.
 */
export function mayManage(actor: Role, role: Role): boolean {
  if (actor === "owner") return true;
  return actor === "admin" && role !== "owner";
}
