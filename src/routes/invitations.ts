import { signingKey } from "../lib/signing-keys";
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { access } from "../auth/access";
import { auditClient, auditEntry } from "../auth/audit-context";
import { sessionPrincipal } from "../auth/principal";
import { CROSS_ORIGIN_MESSAGE, sameOrigin } from "../auth/same-origin";
import { readSession, startSession } from "../auth/session";
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
import { attachClaimedInvitations } from "../domain/accounts/claimed-invitations";
import { invitationPage } from "../domain/accounts/invitation-texts";
import { findUser } from "../domain/accounts/users";
import { clientKey, enforceLimit, PUBLIC_LIMITS } from "../domain/public-limits";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { HTML_HEADERS, htmlPage } from "../lib/html";
import { isId } from "../lib/ids";
import { iso } from "../lib/time";
import { validationHook } from "../lib/validation";
import { deadLinkResponse, htmlContent, jsonBody, jsonContent, pickErrors } from "../schemas/common";
import { prefersJson } from "../lib/http";
import { PageQuery } from "../schemas/common";
import { InvitationListSchema, InvitationParam, InvitationSchema, InvitationTokenParam, InviteSchema } from "../schemas/teams";
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
    ...(row.claimedAt !== null ? { claimed_at: iso(row.claimedAt) } : {}),
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
    "Sends an email with a single-use link valid 7 days (`GET /v1/auth/invitation/{token}`: a confirmation page whose button, for a new address, creates the account, adds the membership and signs in; " +
    "for an address that already has an account, records the confirmation, and that person's next ordinary sign-in adds the membership). " +
    "The email's wording is fixed: it names the tenant by its verified domain, else by the inviter's email address, never by its display name. " +
    "Admins invite any role but owner; owners any. An address that is already a member, or has an open invitation (resend or revoke it), is 409 `invalid_state`; " +
    "an expired one is replaced. Invitation emails (new and resent) per tenant: 100 an hour and 250 a day (UTC), 20 a day while the tenant is less than a day old (429 with `Retry-After`); " +
    "and per invited address, whichever tenants invite it: 10 an hour and 20 a day (UTC; 429 with `Retry-After`, nothing written). " +
    "Recorded as `member.invited`.",
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
  summary: "Open invitations (pending, expired, or awaiting the invitee's sign-in), newest first",
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
    "The previous link stops working. An accepted, revoked or already confirmed (`awaiting_sign_in`) invitation is 409 `invalid_state`. " +
    "At most 5 sends per invitation per hour (the first and 4 resends), and it counts against the tenant's invitation emails and the address's (429). Recorded as `invitation.resent`.",
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
  const { invitation, naming, existingAccount } = found;
  const { title, text } = invitationPage(naming, invitation.role, invitation.email, existingAccount);
  const body = htmlPage(title, text, { action: `/v1/auth/invitation/${token}`, button: existingAccount ? "Join" : "Join and sign in" });
  return c.body(body, 200, HTML_HEADERS);
});

const accept = createRoute({
  method: "post",
  path: "/v1/auth/invitation/{token}",
  operationId: "acceptInvitation",
  tags: ["Dashboard sign-in"],
  security: [],
  summary: "Accept an invitation (the confirmation page's form): a new address joins and is signed in; an existing account joins at its next sign-in",
  description:
    "Must come from this service's own page (the same-origin rule), else 403. For an address without an account: creates the user (with no tenant of their own), " +
    "adds the membership, signs in once and sets `svc_session` (303); recorded as `member.joined` and `session.signed_in`. " +
    "For an address that already has an account: signs nobody in (the link is no way around that account's own sign-in) and sets no cookie; the invitation becomes " +
    "`awaiting_sign_in`, and that person's next ordinary sign-in (single sign-on, email link, code) adds the membership, recorded as `member.joined`, " +
    "without changing the organisation they land in (200, a page saying so); when this browser is signed in as that account already, it is added at once. Rate-limited with the page.",
  request: { params: InvitationTokenParam },
  responses: {
    200: htmlContent("An existing account: confirmed; the membership is added at that person's next sign-in"),
    303: redirect("A new account: signed in; to the console"),
    401: deadLinkResponse("Used, revoked, expired or unknown link"),
    ...pickErrors(403, 429),
  },
});

app.openapi(accept, async (c) => {
  await enforceLimit(c.env, PUBLIC_LIMITS.invitationClient, clientKey(c.req.header("CF-Connecting-IP")));
  if (!sameOrigin(c)) throw new ApiError("forbidden", CROSS_ORIGIN_MESSAGE);
  const db = createDb(c.env.DB);
  const accepted = await acceptInvitation(db, c.req.valid("param").token, auditClient(c));
  if (!accepted) return deadInvitation(c);
  c.header("Cache-Control", "no-store");
  if (accepted.kind === "awaiting_sign_in") {
    // Already signed in here as that very account (the ordinary way, earlier): it joins now; the session is left as it is.
    const session = await readSession(c);
    const user = session && session !== "csrf" && session.userId === accepted.invitation.claimedBy ? await findUser(db, session.userId) : undefined;
    if (user && (await attachClaimedInvitations(db, user, auditClient(c))) > 0) {
      const page = htmlPage("You joined the team", "The team is added to your account, beside your others. Choose it in the console's organisation menu.", {
        action: CONSOLE_HOME,
        button: "Go to the console",
        method: "get",
      });
      return c.body(page, 200, HTML_HEADERS);
    }
    const page = htmlPage("Sign in as you usually do to join", `Confirmed. Sign in as you usually do, as ${accepted.invitation.email}: the team is then added to your account, beside your others.`, {
      action: CONSOLE_SIGN_IN,
      button: "Go to the sign-in page",
      method: "get",
    });
    return c.body(page, 200, HTML_HEADERS);
  }
  await startSession(c, { userId: accepted.signedIn.user.id, tenantId: accepted.signedIn.tenantId });
  return c.redirect(CONSOLE_HOME, 303);
});

export default app;
