import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { access } from "../auth/access";
import { auditClient, auditEntry } from "../auth/audit-context";
import { newFlow, safeReturnTo, saveFlow, takeFlow } from "../auth/oauth-flow";
import { CROSS_ORIGIN_MESSAGE, sameOrigin } from "../auth/same-origin";
import { refuseApiKeys } from "../auth/middleware";
import { clearSessionCookie, endSessionsOf, readSession, startSession } from "../auth/session";
import { createDb, type Db } from "../db/client";
import { peekMagicLink, requestMagicLink, spendMagicLink } from "../domain/accounts/magic-links";
import { readMe } from "../domain/accounts/me";
import { endTenantSessions } from "../domain/accounts/members";
import { PHONE_MEMBER_ROLE, PHONE_PROVIDER, verifyOtp } from "../domain/accounts/otp";
import { findUser, signInIdentity, switchTenant as switchTenantOf, type SignedIn } from "../domain/accounts/users";
import { clientKey, enforceLimit, PUBLIC_LIMITS } from "../domain/public-limits";
import type { AppEnv } from "../env";
import { isLocalRequest, settings } from "../env";
import { ApiError } from "../lib/errors";
import { HTML_HEADERS, htmlPage } from "../lib/html";
import { validationHook } from "../lib/validation";
import { signInFailed, type Identity } from "../providers/identity";
import { availableProviders, identityProvider } from "../providers/sign-in-providers";
import { CONSOLE_SIGN_IN, signInPageUrl, type SignInError } from "../console/paths";
import type { Context } from "hono";
import {
  LoginQuery,
  MagicLinkParam,
  MagicLinkRequestSchema,
  MagicLinkSentSchema,
  MeSchema,
  OtpVerifySchema,
  ProviderParam,
  SignedOutEverywhereSchema,
  SignedOutSchema,
  SignInProvidersSchema,
  SwitchTenantSchema,
} from "../schemas/auth";
import { deadLinkResponse, htmlContent, jsonBody, jsonContent, pickErrors } from "../schemas/common";
import { prefersJson } from "../lib/http";

/** Dashboard sign-in (OAuth/OIDC, magic link, messaging code), `GET /v1/me` and logout. */
const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

const redirect = (description: string) => ({ description, headers: z.object({ Location: z.string() }) });

function callbackUri(env: Env, provider: string): string {
  return `${settings(env).baseUrl}/v1/auth/${provider}/callback`;
}

/** The Me body of a session just opened (it is a member: the sign-in made sure). */
async function meOf(db: Db, signedIn: SignedIn): Promise<z.infer<typeof MeSchema>> {
  const me = await readMe(db, signedIn.user.id, signedIn.tenantId);
  if (!me) throw new ApiError("unauthorized", "Authentication required.");
  return me;
}

const providers = createRoute({
  method: "get",
  path: "/v1/auth/providers",
  operationId: "listSignInProviders",
  tags: ["Dashboard sign-in"],
  security: [],
  summary: "The sign-in methods this deployment offers (what the console's sign-in page shows)",
  responses: { 200: jsonContent(SignInProvidersSchema, "Configured providers"), ...pickErrors(500) },
});

app.openapi(providers, (c) => c.json({ providers: availableProviders(c.env, { localRequest: isLocalRequest(c.env, c.req.url) }) }, 200));

const login = createRoute({
  method: "get",
  path: "/v1/auth/{provider}/login",
  operationId: "startSignIn",
  tags: ["Dashboard sign-in"],
  security: [],
  summary: "Start an OAuth 2.0 authorization-code sign-in (PKCE S256, state, nonce)",
  description:
    "60 requests per 10 minutes per client network, with the callback's (429). A provider this deployment does not offer is 404, " +
    "except for a browser navigation (`Accept: text/html`), which is sent to the console's sign-in page with `error=unavailable`, as the callback does.",
  request: { params: ProviderParam, query: LoginQuery },
  responses: {
    302: redirect("To the identity provider"),
    303: redirect("A browser asking for a provider this deployment does not offer: to `/console/sign-in?error=unavailable`"),
    ...pickErrors(400, 404, 429, 500),
  },
});

app.openapi(login, async (c) => {
  await enforceLimit(c.env, PUBLIC_LIMITS.signInFlowClient, clientKey(c.req.header("CF-Connecting-IP")));
  const { provider: name } = c.req.valid("param");
  const query = c.req.valid("query");
  const provider = identityProvider(c.env, name, { localRequest: isLocalRequest(c.env, c.req.url) });
  const returnTo = safeReturnTo(query.return_to);
  if (!provider) return signInRefused(c, "unavailable", returnTo, ApiError.notFound("sign-in provider"));
  const flow = newFlow(name, returnTo);
  const url = await provider.authorizationUrl(flow, callbackUri(c.env, name), query.login_hint);
  await saveFlow(c, flow);
  c.header("Cache-Control", "no-store");
  return c.redirect(url.href, 302);
});

const callback = createRoute({
  method: "get",
  path: "/v1/auth/{provider}/callback",
  operationId: "finishSignIn",
  tags: ["Dashboard sign-in"],
  security: [],
  summary: "OAuth 2.0 redirect target: checks state, exchanges the code with the PKCE verifier, sets `svc_session`",
  request: { params: ProviderParam },
  description:
    "The first sign-in of an identity creates the user and their tenant. When a browser navigation (`Accept: text/html`) cannot sign in, " +
    "it is sent to the console's sign-in page with `error` (`expired`, `cancelled`, `failed` or `unavailable`) instead of the error body. " +
    "Rate-limited with the login (429).",
  responses: { 303: redirect("Signed in, to `return_to`; or, for a browser whose sign-in failed, to `/console/sign-in?error=…`"), ...pickErrors(401, 404, 429, 500) },
});

app.openapi(callback, async (c) => {
  await enforceLimit(c.env, PUBLIC_LIMITS.signInFlowClient, clientKey(c.req.header("CF-Connecting-IP")));
  const { provider: name } = c.req.valid("param");
  c.header("Cache-Control", "no-store");
  const provider = identityProvider(c.env, name, { localRequest: isLocalRequest(c.env, c.req.url) });
  if (!provider) return signInRefused(c, "unavailable", undefined, ApiError.notFound("sign-in provider"));
  const flow = await takeFlow(c, name);
  if (!flow) return signInRefused(c, "expired", undefined, signInFailed("the sign-in expired or was started in another browser"));
  let identity: Identity;
  try {
    identity = await provider.complete(new URL(c.req.url), flow, callbackUri(c.env, name));
  } catch (err) {
    const cancelled = new URL(c.req.url).searchParams.get("error") === "access_denied";
    return signInRefused(c, cancelled ? "cancelled" : "failed", flow.returnTo, err);
  }
  const signedIn = await signInIdentity(createDb(c.env.DB), identity, { method: name === "dev" ? "dev" : "oidc", client: auditClient(c) });
  await startSession(c, { userId: signedIn.user.id, tenantId: signedIn.tenantId });
  return c.redirect(flow.returnTo, 303);
});

/**
 * A callback that cannot sign in. A person's browser (a navigation that accepts HTML) goes back to
 * the console's sign-in page, which explains `error` in its own words (no text from the URL is
 * shown) and keeps `return_to`; any other client gets the error itself.
 */
function signInRefused(c: Context<AppEnv>, error: SignInError, returnTo: string | undefined, cause: unknown): Response {
  if (!(c.req.header("Accept") ?? "").includes("text/html")) throw cause;
  return c.redirect(signInPageUrl(error, returnTo), 303);
}

const magicLinkRequest = createRoute({
  method: "post",
  path: "/v1/auth/magic-link",
  operationId: "requestMagicLink",
  tags: ["Dashboard sign-in"],
  security: [],
  summary: "Email a single-use sign-in link (valid 15 minutes)",
  description:
    "Answers the same whether or not the address has an account; the link's first use creates one. At most 5 links per address per client network per 15 minutes and 20 requests per client network per hour (429 `too_many_requests` with `Retry-After`); an IPv6 client network is its /48. " +
    "Whoever asks, one address is sent at most 10 sign-in emails an hour and 20 a day (UTC): beyond that the request answers exactly the same (200 `{sent: true}`) and no email is sent. The email is sent after the answer, so neither the answer nor its timing tells whether it went out.",
  request: { body: jsonBody(MagicLinkRequestSchema, { email: "ops@example.com", return_to: "/console" }) },
  responses: { 200: jsonContent(MagicLinkSentSchema, "Sent"), ...pickErrors(400, 413, 429, 500) },
});

app.openapi(magicLinkRequest, async (c) => {
  // An IPv6 client by its /48 here: this door sends mail to whatever address it is given.
  const client = clientKey(c.req.header("CF-Connecting-IP"), 48);
  await enforceLimit(c.env, PUBLIC_LIMITS.magicLinkClient, client);
  const body = c.req.valid("json");
  const request = { email: body.email, client, returnTo: body.return_to !== undefined ? safeReturnTo(body.return_to) : null };
  // Sent after the answer: its timing says nothing of the address's cap or the provider.
  await requestMagicLink(c.env, createDb(c.env.DB), request, { later: (work) => c.executionCtx.waitUntil(work) });
  return c.json({ sent: true as const }, 200);
});

const magicLinkConfirm = createRoute({
  method: "get",
  path: "/v1/auth/magic-link/{token}",
  operationId: "useMagicLink",
  tags: ["Dashboard sign-in"],
  security: [],
  summary: "Follow a magic link: a confirmation page whose button signs in (spends nothing by itself)",
  description:
    "Link scanners and prefetchers may GET the link freely; only the page's own same-origin POST signs in, so a link cannot sign a browser into someone else's account behind its back (login CSRF). " +
    "60 requests per 10 minutes per client network, with the button's (429).",
  request: { params: MagicLinkParam },
  responses: { 200: htmlContent("The confirmation page (a form that POSTs to this URL)"), 401: deadLinkResponse("Used, expired or unknown link"), ...pickErrors(429) },
});

const DEAD_LINK = "This sign-in link no longer works: sign-in links work once and for 15 minutes. Request a new one from the sign-in page.";

/** A used, expired or unknown link: the page to a browser, the standard error body to a JSON client. */
function deadLink(c: Context<AppEnv>): Response {
  if (prefersJson(c)) throw new ApiError("unauthorized", DEAD_LINK);
  const page = htmlPage("This sign-in link no longer works", "Sign-in links work once and for 15 minutes. Request a new one from the sign-in page.", {
    action: CONSOLE_SIGN_IN,
    button: "Go to the sign-in page",
    method: "get",
  });
  return c.body(page, 401, HTML_HEADERS);
}

app.openapi(magicLinkConfirm, async (c) => {
  await enforceLimit(c.env, PUBLIC_LIMITS.magicLinkPage, clientKey(c.req.header("CF-Connecting-IP")));
  const { token } = c.req.valid("param");
  const email = await peekMagicLink(createDb(c.env.DB), token);
  if (!email) return deadLink(c);
  const page = htmlPage("Sign in to the verification dashboard", `You are signing in as ${email}.`, {
    action: `/v1/auth/magic-link/${token}`,
    button: "Sign in",
  });
  return c.body(page, 200, HTML_HEADERS);
});

const magicLinkUse = createRoute({
  method: "post",
  path: "/v1/auth/magic-link/{token}",
  operationId: "spendMagicLink",
  tags: ["Dashboard sign-in"],
  security: [],
  summary: "Spend a magic link: signs in once and sets `svc_session` (the confirmation page's form)",
  description:
    "Must come from this service's own page (the same-origin rule: `Sec-Fetch-Site: same-origin`, or without it an `Origin` of this service, or neither header from a non-browser client), else 403. Rate-limited with the page.",
  request: { params: MagicLinkParam },
  responses: { 303: redirect("Signed in; to the request's `return_to` (default `/v1/me`)"), 401: deadLinkResponse("Used, expired or unknown link"), ...pickErrors(403, 429) },
});

app.openapi(magicLinkUse, async (c) => {
  await enforceLimit(c.env, PUBLIC_LIMITS.magicLinkPage, clientKey(c.req.header("CF-Connecting-IP")));
  if (!sameOrigin(c)) throw new ApiError("forbidden", CROSS_ORIGIN_MESSAGE);
  const db = createDb(c.env.DB);
  const spent = await spendMagicLink(db, c.req.valid("param").token);
  if (!spent) return deadLink(c);
  const signedIn = await signInIdentity(db, { provider: "email", subject: spent.email, email: spent.email }, { method: "magic_link", client: auditClient(c) });
  await startSession(c, { userId: signedIn.user.id, tenantId: signedIn.tenantId });
  c.header("Cache-Control", "no-store");
  return c.redirect(safeReturnTo(spent.returnTo ?? undefined), 303);
});

const otpVerify = createRoute({
  method: "post",
  path: "/v1/auth/otp/verify",
  operationId: "verifyOtp",
  tags: ["Dashboard sign-in"],
  security: [],
  summary: "Sign in with a messaging one-time code (issued to the bot by `POST /v1/bot/otp`)",
  description: "Six digits, 10 minutes, single use; locked after 5 wrong attempts. 60 tries per 10 minutes per client network (429). Sets `svc_session`.",
  request: { body: jsonBody(OtpVerifySchema, { otp_id: "walotp_01JD2Y4N9M6Q8R0S2T4V6W8X0Z", code: "042917" }) },
  responses: { 200: jsonContent(MeSchema, "Signed in"), ...pickErrors(400, 401, 403, 413, 429, 500) },
});

const otpRefusal = {
  wrong_code: "Wrong code.",
  locked: "Too many wrong attempts: request a new code.",
  expired: "This code is no longer valid: request a new one.",
  unknown: "This code is no longer valid: request a new one.",
  unregistered: "This phone number is no longer registered for the tenant.",
} as const;

app.openapi(otpVerify, async (c) => {
  await enforceLimit(c.env, PUBLIC_LIMITS.otpVerifyClient, clientKey(c.req.header("CF-Connecting-IP")));
  const body = c.req.valid("json");
  const db = createDb(c.env.DB);
  const outcome = await verifyOtp(c.env, db, { otpId: body.otp_id, code: body.code });
  if (!outcome.ok) throw new ApiError("unauthorized", otpRefusal[outcome.reason]);
  const signedIn = await signInIdentity(
    db,
    { provider: PHONE_PROVIDER, subject: outcome.phone, phone: outcome.phone },
    { method: "phone_code", client: auditClient(c), join: { tenantId: outcome.tenantId, role: PHONE_MEMBER_ROLE } },
  );
  await startSession(c, { userId: signedIn.user.id, tenantId: signedIn.tenantId });
  return c.json(await meOf(db, signedIn), 200);
});

const me = createRoute({
  method: "get",
  path: "/v1/me",
  operationId: "getMe",
  tags: ["Dashboard sign-in"],
  summary: "The signed-in user, the session's tenant and role there, and every tenant they belong to",
  ...access({ session: "viewer" }),
  responses: { 200: jsonContent(MeSchema, "The session's user"), ...pickErrors(401, 403, 500) },
});

app.openapi(me, async (c) => {
  const principal = c.get("principal");
  if (principal.kind !== "session") throw new ApiError("unauthorized", "Authentication required.");
  const body = await readMe(createDb(c.env.DB), principal.userId, principal.tenantId);
  if (!body) throw new ApiError("unauthorized", "Authentication required.");
  return c.json(body, 200);
});

const switchTenant = createRoute({
  method: "post",
  path: "/v1/auth/switch-tenant",
  operationId: "switchTenant",
  tags: ["Dashboard sign-in"],
  summary: "Open another tenant the user belongs to: a new session for it replaces this one",
  description:
    "The session carries one active tenant (its `tid`); this re-issues `svc_session` for `tenant_id`, which becomes the tenant the user's next sign-in opens, " +
    "and records `session.signed_in` there. A tenant the user is not a member of is 404. The previous session stays valid until it expires or the user signs out.",
  ...access({ session: "viewer" }),
  request: { body: jsonBody(SwitchTenantSchema, { tenant_id: "tnt_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }) },
  responses: { 200: jsonContent(MeSchema, "Signed in to that tenant"), ...pickErrors(400, 401, 403, 404, 413, 415, 500) },
});

app.openapi(switchTenant, async (c) => {
  const principal = c.get("principal");
  if (principal.kind !== "session") throw new Error("switch-tenant reached without a session");
  const db = createDb(c.env.DB);
  const user = await findUser(db, principal.userId);
  const switched = user ? await switchTenantOf(db, user, c.req.valid("json").tenant_id, auditClient(c)) : null;
  if (!switched) throw ApiError.notFound("tenant among yours");
  await startSession(c, { userId: switched.user.id, tenantId: switched.tenantId });
  c.header("Cache-Control", "no-store");
  return c.json(await meOf(db, switched), 200);
});

const logout = createRoute({
  method: "post",
  path: "/v1/auth/logout",
  operationId: "signOut",
  tags: ["Dashboard sign-in"],
  security: [{ session: [] }, {}],
  summary: "Sign out: voids the user's sessions (this one and any copy of it) and clears the cookie",
  description:
    "Moves the user's \"sessions valid after\" instant to now, so every session token issued to them before it is refused from now on, on any device. " +
    "Without a session it only clears the cookie; an API key is 403 (401 when it is not a valid key), as on every session route.",
  responses: { 200: jsonContent(SignedOutSchema, "Signed out"), ...pickErrors(401, 403, 500) },
});

app.openapi(logout, async (c) => {
  await refuseApiKeys(c);
  // Signing someone out from another site is a nuisance attack: the Origin check applies here too.
  const session = await readSession(c);
  if (session === "csrf") throw new ApiError("forbidden", CROSS_ORIGIN_MESSAGE);
  if (session) await endSessionsOf(createDb(c.env.DB), [session.userId]);
  clearSessionCookie(c);
  return c.json({ signed_out: true as const }, 200);
});

const logoutEverywhere = createRoute({
  method: "post",
  path: "/v1/auth/logout-everywhere",
  operationId: "logoutEverywhere",
  tags: ["Dashboard sign-in"],
  summary: "Sign every member of this tenant out of it, on every device",
  description:
    "For a lost laptop or a leaked cookie: every session for this tenant issued to any of its members before now is refused from now on (the caller's too; the cookie is cleared). " +
    "Their sessions for other tenants are untouched. Admin or owner, session only, same-origin rule; recorded as `session.signed_out_everywhere`.",
  ...access({ session: "admin" }),
  responses: { 200: jsonContent(SignedOutEverywhereSchema, "Signed out"), ...pickErrors(401, 403, 500) },
});

app.openapi(logoutEverywhere, async (c) => {
  const principal = c.get("principal");
  const db = createDb(c.env.DB);
  const count = await endTenantSessions(db, auditEntry(c, "session.signed_out_everywhere", { type: "tenant", id: principal.tenantId }));
  clearSessionCookie(c);
  return c.json({ signed_out: true as const, users: count }, 200);
});

export default app;
