import { signingKey } from "../lib/signing-keys";
import { createRoute, OpenAPIHono, type z } from "@hono/zod-openapi";
import { access } from "../auth/access";
import { auditEntry } from "../auth/audit-context";
import { sessionPrincipal } from "../auth/principal";
import { createDb } from "../db/client";
import { changeRole, listMembers, removeMember, type MemberView } from "../domain/accounts/members";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { isId } from "../lib/ids";
import { iso } from "../lib/time";
import { validationHook } from "../lib/validation";
import { jsonBody, jsonContent, pickErrors } from "../schemas/common";
import { PageQuery } from "../schemas/common";
import { ChangeRoleSchema, MemberListSchema, MemberParam, MemberSchema } from "../schemas/teams";

/** A tenant's members and their roles (dashboard session). */
const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

export function presentMember(m: MemberView): z.infer<typeof MemberSchema> {
  return {
    user_id: m.userId,
    ...(m.email ? { email: m.email } : {}),
    ...(m.phone ? { phone: m.phone } : {}),
    ...(m.displayName ? { display_name: m.displayName } : {}),
    role: m.role,
    joined_at: iso(m.joinedAt),
  };
}

const list = createRoute({
  method: "get",
  path: "/v1/members",
  operationId: "listMembers",
  tags: ["Team"],
  summary: "The tenant's members and their roles",
  description: "Every member may see the team. In user-id order, keyset-paginated (`next_cursor`).",
  ...access({ session: "viewer" }),
  request: { query: PageQuery },
  responses: { 200: jsonContent(MemberListSchema, "One page of members"), ...pickErrors(400, 401, 403, 500) },
});

app.openapi(list, async (c) => {
  const query = c.req.valid("query");
  const { members, nextCursor } = await listMembers(createDb(c.env.DB), await signingKey(c.env, "cursors"), c.get("principal").tenantId, {
    limit: query.limit,
    ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
  });
  return c.json({ items: members.map(presentMember), ...(nextCursor ? { next_cursor: nextCursor } : {}) }, 200);
});

const memberTarget = (m: MemberView) => ({ type: "user", id: m.userId, label: m.email ?? m.phone ?? null });

const patch = createRoute({
  method: "patch",
  path: "/v1/members/{user_id}",
  operationId: "changeMemberRole",
  tags: ["Team"],
  summary: "Give a member another role",
  description:
    "Admins change members other than owners and cannot give the owner role (403); owners change anyone. The last owner cannot be demoted " +
    "(409 `invalid_state`). Takes effect on the member's next request. Recorded as `member.role_changed` with `from` and `to`.",
  ...access({ session: "admin" }),
  request: { params: MemberParam, body: jsonBody(ChangeRoleSchema, { role: "reviewer" }) },
  responses: { 200: jsonContent(MemberSchema, "The member with the new role"), ...pickErrors(400, 401, 403, 404, 409, 413, 415, 500) },
});

app.openapi(patch, async (c) => {
  const principal = sessionPrincipal(c.get("principal"));
  const { user_id: userId } = c.req.valid("param");
  if (!isId("user", userId)) throw ApiError.notFound("member");
  const member = await changeRole(createDb(c.env.DB), {
    tenantId: principal.tenantId,
    actorRole: principal.role,
    userId,
    role: c.req.valid("json").role,
    audit: (m) => auditEntry(c, "member.role_changed", memberTarget(m)),
  });
  return c.json(presentMember(member), 200);
});

const remove = createRoute({
  method: "delete",
  path: "/v1/members/{user_id}",
  operationId: "removeMember",
  tags: ["Team"],
  summary: "Remove a member from the tenant (their sessions for it stop working at once)",
  description:
    "Admins remove members other than owners; owners remove anyone. The last owner cannot be removed (409 `invalid_state`). The person keeps their " +
    "account and other memberships; the tenant's registration of their phone goes. Recorded as `member.removed` with the role they had (and `phone.removed`, with `with_member`, when their phone's registration went). A member removed already is 404. " +
    "Only the role checked is removed: a member whose role changed meanwhile is checked again (403 when it is now one the caller may not remove).",
  ...access({ session: "admin" }),
  request: { params: MemberParam },
  responses: { 200: jsonContent(MemberSchema, "The member as they were"), ...pickErrors(401, 403, 404, 409, 500) },
});

app.openapi(remove, async (c) => {
  const principal = sessionPrincipal(c.get("principal"));
  const { user_id: userId } = c.req.valid("param");
  if (!isId("user", userId)) throw ApiError.notFound("member");
  const member = await removeMember(createDb(c.env.DB), {
    tenantId: principal.tenantId,
    actorRole: principal.role,
    userId,
    audit: (m) => auditEntry(c, "member.removed", memberTarget(m)),
  });
  return c.json(presentMember(member), 200);
});

export default app;
