import type { Schemas } from "../api";
import { useSession } from "../session";

/*
 * What the signed-in member's role in the active tenant lets them do (`GET /v1/me`'s `role`). The
 * service checks every request itself (403 naming the role); the console only leaves out the
 * controls a role may not use, so nobody is offered a button that can only fail.
 */
export type Role = Schemas["Role"];

const ORDER: readonly Role[] = ["viewer", "reviewer", "admin", "owner"];

export const ROLE_NAMES: Record<Role, string> = { owner: "Owner", admin: "Admin", reviewer: "Reviewer", viewer: "Viewer" };

export const ROLE_DESCRIPTIONS: Record<Role, string> = {
  viewer: "Reads everything: lists, details, photos, timelines, deliveries.",
  reviewer: "Also creates verifications, reviews, finalizes and copies capture links.",
  admin: "Also manages members (not owners), invitations, API keys, webhooks, settings, templates, phones, erasing evidence and the audit log.",
  owner: "Everything, owners included.",
};

export function atLeast(role: Role, needed: Role): boolean {
  return ORDER.indexOf(role) >= ORDER.indexOf(needed);
}

/** Whether `actor` may give `role`, or change or remove a member holding it (as the service decides). */
export function mayManage(actor: Role, role: Role): boolean {
  return actor === "owner" || (actor === "admin" && role !== "owner");
}

/** The roles `actor` may give, least first. */
export function grantable(actor: Role): Role[] {
  return ORDER.filter((r) => mayManage(actor, r));
}

/** `can("reviewer")`: whether the signed-in member holds that role or a higher one. */
export function useCan(): (needed: Role) => boolean {
  const { me } = useSession();
  return (needed) => atLeast(me.role, needed);
}
