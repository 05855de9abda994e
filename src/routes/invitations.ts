import { signingKey } from "../lib/signing-keys";
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { access } from "../auth/access";
import { auditClient, auditEntry } from "../auth/audit-context";
import { sessionPrincipal } from "../auth/principal";
import { CROSS_ORIGIN_MESSAGE, sameOrigin } from "../auth/same-origin";
import { startSession } from "../auth/session";
import { createDb } from "../db/client";
import { CONSOLE_HOME, CONSOLE_SIGN_IN } from "../console/paths";
import {
  acceptInvitation,
  createInvitation,
  invitationStatus,
  listInvitations,
  peekInvitation,
  resendInvitation,
  revokeInvitation,
  type InvitationRow,
  type Inviter,
} from "../domain/accounts/invitations";
import { clientKey, enforceLimit, PUBLIC_LIMITS } from "../domain/public-limits";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { HTML_HEADERS, htmlPage } from "../lib/html";
import { isId } from "../lib/ids";
import { iso } from "../lib/time";
import { validationHook } from "../lib/validation";
import { deadLinkResponse, htmlContent, jsonBody, jsonContent, pickErrors } from "../schemas/common";
import { prefersJson } from "../lib/http";
import { InvitationListSchema, InvitationParam, InvitationSchema, InvitationTokenParam, InviteSchema, PageQuery } from "../schemas/teams";
import type { Context } from "hono";

/** Invitations to join a tenant: sent by admins and owners, followed by the invitee (its page and button). */
const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

function presentInvitation(row: InvitationRow, now = Date.now()): z.infer<typeof InvitationSchema> {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    status: invitationStatus(row, now),
    invited_by: row.invitedBy,
    created_at: iso(row.createdAt),
    expires_at: iso(row.expiresAt),
    sent_at: iso(row.sentAt),
    send_count: row.sendCount,
    ...(row.acceptedAt !== null ? { accepted_at: iso(row.acceptedAt) } : {}),
    ...(row.revokedAt !== null ? { revoked_at: iso(row.revokedAt) } : {}),
  };
}

function inviterOf(c: Context<AppEnv>): Inviter {
  const principal = sessionPrincipal(c.get("principal"));
  return { tenantId: principal.tenantId, userId: principal.userId, role: principal.role, label: principal.label };
}

const invitationTarget = (row: InvitationRow) => ({ type: "invitation", id: row.id, label: row.email });

const create = createRoute({
  method: "post",
  path: "/v1/invitations",
  operationId: "inviteMember",
  tags: ["Team"],
  summary: "Invite someone by email to join the tenant with a role",
  description:
    "Sends an email with a single-use link valid 7 days (`GET /v1/auth/invitation/{token}`: a confirmation page whose button signs the invitee in and adds the membership). " +
    "Admins invite any role but owner; owners any. An address that is already a member, or has a pending invitation (resend or revoke it), is 409 `invalid_state`; " +
    "an expired one is replaced. At most 100 invitation emails per tenant per hour (429). Recorded as `member.invited`.",
  ...access({ session: "admin" }),
  request: { body: jsonBody(InviteSchema, { email: "adjuster@example.com", role: "reviewer" }) },
  responses: { 201: jsonContent(InvitationSchema, "Invited; the email is on its way"), ...pickErrors(400, 401, 403, 409, 413, 415, 429, 500) },
});

app.openapi(create, async (c) => {
  const body = c.req.valid("json");
  const row = await createInvitation(c.env, createDb(c.env.DB), {
    inviter: inviterOf(c),
    email: body.email,
    role: body.role,
    audit: (r) => auditEntry(c, "member.invited", invitationTarget(r), { role: r.role }),
  });
  return c.json(presentInvitation(row), 201);
});

const list = createRoute({
  method: "get",
  path: "/v1/invitations",
  operationId: "listInvitations",
  tags: ["Team"],
  summary: "Open invitations (pending or expired), newest first",
  description: "Accepted invitations are members (`GET /v1/members`); revoked ones are gone (the audit log keeps both facts). Keyset-paginated (`next_cursor`).",
  ...access({ session: "admin" }),
  request: { query: PageQuery },
  responses: { 200: jsonContent(InvitationListSchema, "One page"), ...pickErrors(400, 401, 403, 500) },
});

app.openapi(list, async (c) => {
  const query = c.req.valid("query");
  const { rows, nextCursor } = await listInvitations(createDb(c.env.DB), await signingKey(c.env, "cursors"), c.get("principal").tenantId, {
    limit: query.limit,
    ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
  });
  const now = Date.now();
  return c.json({ items: rows.map((r) => presentInvitation(r, now)), ...(nextCursor ? { next_cursor: nextCursor } : {}) }, 200);
});

const resend = createRoute({
  method: "post",
  path: "/v1/invitations/{id}/resend",
  operationId: "resendInvitation",
  tags: ["Team"],
  summary: "Send an open invitation again: a new link, valid 7 days from now",
  description:
    "The previous link stops working. An accepted or revoked invitation is 409 `invalid_state`. At most 5 sends per invitation per hour (429). Recorded as `invitation.resent`.",
  ...access({ session: "admin" }),
  request: { params: InvitationParam },
  responses: { 200: jsonContent(InvitationSchema, "Sent again"), ...pickErrors(401, 403, 404, 409, 429, 500) },
});

app.openapi(resend, async (c) => {
  const { id } = c.req.valid("param");
  if (!isId("invitation", id)) throw ApiError.notFound("invitation");
  const row = await resendInvitation(c.env, createDb(c.env.DB), { inviter: inviterOf(c), id, audit: (r) => auditEntry(c, "invitation.resent", invitationTarget(r), { role: r.role }) });
  return c.json(presentInvitation(row), 200);
});

const revoke = createRoute({
  method: "delete",
  path: "/v1/invitations/{id}",
  operationId: "revokeInvitation",
  tags: ["Team"],
  summary: "Revoke an invitation: its link stops working",
  description: "Revoking again answers the same invitation. An accepted one is 409 `invalid_state` (remove the member instead). Recorded as `invitation.revoked`.",
  ...access({ session: "admin" }),
  request: { params: InvitationParam },
  responses: { 200: jsonContent(InvitationSchema, "The revoked invitation"), ...pickErrors(401, 403, 404, 409, 500) },
});

app.openapi(revoke, async (c) => {
  const { id } = c.req.valid("param");
  if (!isId("invitation", id)) throw ApiError.notFound("invitation");
  const row = await revokeInvitation(createDb(c.env.DB), { inviter: inviterOf(c), id, audit: (r) => auditEntry(c, "invitation.revoked", invitationTarget(r), { role: r.role }) });
  return c.json(presentInvitation(row), 200);
});

/* The invitee's side: the link, its confirmation page and the page's button. */

const redirect = (description: string) => ({ description, headers: z.object({ Location: z.string() }) });

const DEAD_INVITATION = "This invitation no longer works: invitation links work once and for 7 days, until revoked or sent again. Ask whoever invited you to send it again.";

/** A used, revoked, expired or unknown invitation: the page to a browser, the standard error body to a JSON client. */
function deadInvitation(c: Context<AppEnv>): Response {
  if (prefersJson(c)) throw new ApiError("unauthorized", DEAD_INVITATION);
  const page = htmlPage("This invitation no longer works", "Invitation links work once and for 7 days, until revoked or sent again. Ask whoever invited you to send it again.", {
    action: CONSOLE_SIGN_IN,
    button: "Go to the sign-in page",
    method: "get",
  });
  return c.body(page, 401, HTML_HEADERS);
}

const ROLE_NAMES = { owner: "owner", admin: "admin", reviewer: "reviewer", viewer: "viewer" } as const;

const page = createRoute({
  method: "get",
  path: "/v1/auth/invitation/{token}",
  operationId: "openInvitation",
  tags: ["Dashboard sign-in"],
  security: [],
  summary: "Follow an invitation link: a confirmation page whose button joins and signs in (spends nothing by itself)",
  description: "Link scanners may GET it freely. 30 requests per 10 minutes per client network, with the button's (429).",
  request: { params: InvitationTokenParam },
  responses: { 200: htmlContent("The confirmation page (a form that POSTs to this URL)"), 401: deadLinkResponse("Used, revoked, expired or unknown link"), ...pickErrors(429) },
});

app.openapi(page, async (c) => {
  await enforceLimit(c.env, PUBLIC_LIMITS.invitationClient, clientKey(c.req.header("CF-Connecting-IP")));
  const { token } = c.req.valid("param");
  const found = await peekInvitation(createDb(c.env.DB), token);
  if (!found) return deadInvitation(c);
  const { invitation, tenantName } = found;
  const body = htmlPage(`Join ${tenantName}`, `You are joining ${tenantName} as ${ROLE_NAMES[invitation.role]}, and signing in as ${invitation.email}.`, {
    action: `/v1/auth/invitation/${token}`,
    button: "Join and sign in",
  });
  return c.body(body, 200, HTML_HEADERS);
});

const accept = createRoute({
  method: "post",
  path: "/v1/auth/invitation/{token}",
  operationId: "acceptInvitation",
  tags: ["Dashboard sign-in"],
  security: [],
  summary: "Accept an invitation: joins the tenant, signs in once and sets `svc_session` (the confirmation page's form)",
  description:
    "Must come from this service's own page (the same-origin rule), else 403. Creates the user of the invited address if new (with no tenant of their own); " +
    "an existing user keeps their other memberships (and their role, if already a member). Recorded as `member.joined` and `session.signed_in`. Rate-limited with the page.",
  request: { params: InvitationTokenParam },
  responses: { 303: redirect("Signed in; to the console"), 401: deadLinkResponse("Used, revoked, expired or unknown link"), ...pickErrors(403, 429) },
});

app.openapi(accept, async (c) => {
  await enforceLimit(c.env, PUBLIC_LIMITS.invitationClient, clientKey(c.req.header("CF-Connecting-IP")));
  if (!sameOrigin(c)) throw new ApiError("forbidden", CROSS_ORIGIN_MESSAGE);
  const signedIn = await acceptInvitation(createDb(c.env.DB), c.req.valid("param").token, auditClient(c));
  if (!signedIn) return deadInvitation(c);
  await startSession(c, { userId: signedIn.user.id, tenantId: signedIn.tenantId });
  c.header("Cache-Control", "no-store");
  return c.redirect(CONSOLE_HOME, 303);
});

export default app;
