import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import { createDb } from "../db/client";
import { apiKeys } from "../db/schema";
import { eq } from "drizzle-orm";
import type { AppEnv } from "../env";
import { settings } from "../env";
import { ApiError } from "../lib/errors";
import { findTenant } from "../domain/tenants/tenants";
import { resolveApiKey } from "./api-keys";
import { BOT_AUTH_HEADER, verifyBotRequest } from "./bot";
import { hasRole, roleRefusal, type Role } from "./roles";
import { CROSS_ORIGIN_MESSAGE, sameOrigin } from "./same-origin";
import { readSession, SESSION_COOKIE } from "./session";

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

/**
 * The `Authorization` header when it is this API's (a Bearer API key). Another scheme is not ours: a
 * browser sends `Basic` to every page of an origin behind HTTP basic authentication (a staging
 * console), and that must not stand in for the session cookie beside it.
 */
function bearerHeader(c: Context<AppEnv>): string | undefined {
  const header = c.req.header("Authorization");
  return header !== undefined && /^Bearer\b/i.test(header.trim()) ? header : undefined;
}
const LAST_USED_GRANULARITY_MS = 60_000;

/** Which credentials a route accepts; checked in this order. */
export interface AuthOptions {
  apiKey?: "full" | "any";
  /** A dashboard session of a member holding at least this role (auth/roles.ts). */
  session?: Role;
  /** The messaging bot (`X-Bot-Auth` HMAC); the tenant is the body's `tenant_id`. */
  bot?: boolean;
}

const SESSION_ONLY = "This operation needs a dashboard session: API keys cannot use it.";

/**
 * A 401 where an API key would be taken carries the Bearer challenge (RFC 6750 §3), naming
 * `invalid_token` when a key was sent. A session-only route sends none: no scheme a client could
 * answer signs in there.
 */
function notAuthenticated(message: string, options: AuthOptions, keySent: boolean): ApiError {
  if (!options.apiKey) return new ApiError("unauthorized", message);
  const challenge = keySent ? 'Bearer realm="api", error="invalid_token"' : 'Bearer realm="api"';
  return new ApiError("unauthorized", message, { headers: { "WWW-Authenticate": challenge } });
}
const BOT_ONLY = "This operation is the messaging bot's: sign it with X-Bot-Auth (API keys and sessions cannot use it).";

/**
 * For an operation a session may use without being required (logout): an `Authorization` header is
 * answered as on every session-only route, 401 for a bad key and 403 for a valid one.
 */
export async function refuseApiKeys(c: Context<AppEnv>): Promise<void> {
  const header = bearerHeader(c);
  if (header === undefined) return;
  const token = BEARER.exec(header)?.[1];
  const key = token ? await resolveApiKey(createDb(c.env.DB), token, settings(c.env).keyEnvironment) : null;
  throw key ? new ApiError("forbidden", SESSION_ONLY) : new ApiError("unauthorized", "Invalid API key.");
}

/**
 * Authenticates the caller and puts the Principal on the context. Every failure to authenticate is
 * the same 401; an authenticated caller without the right (a publishable key, a valid key on a
 * session-only route, a member whose role is below the route's) gets 403.
 */
export function authenticate(options: AuthOptions) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const header = bearerHeader(c);
    if (header !== undefined && (options.apiKey || options.session)) {
      const token = BEARER.exec(header)?.[1];
      const db = createDb(c.env.DB);
      const key = token ? await resolveApiKey(db, token, settings(c.env).keyEnvironment) : null;
      if (!key) throw notAuthenticated("Invalid API key.", options, true);
      // A valid key is an authenticated caller: on a route keys may not use, that is 403, not 401.
      if (!options.apiKey) throw new ApiError("forbidden", SESSION_ONLY);
      if (options.apiKey === "full" && key.scope !== "full") {
        throw new ApiError("forbidden", "A publishable key may only create verifications.");
      }
      c.set("principal", { kind: "api_key", tenantId: key.tenantId, keyId: key.id, scope: key.scope, name: key.name });
      touchKey((work) => c.executionCtx.waitUntil(work), db, key.id);
      return next();
    }
    const botAuth = c.req.header(BOT_AUTH_HEADER);
    if (botAuth !== undefined && options.bot) {
      const rawBody = await c.req.text();
      const db = createDb(c.env.DB);
      const url = new URL(c.req.url);
      const check = await verifyBotRequest(db, c.env.BOT_SECRET, botAuth, { method: c.req.method, path: url.pathname + url.search, rawBody });
      if (!check.ok) throw new ApiError("unauthorized", botRefusal[check.reason]);
      const tenantId = bodyTenantId(rawBody);
      if (!tenantId) throw ApiError.invalid({ tenant_id: "Required: the tenant this request acts for." });
      if (!(await findTenant(db, tenantId))) throw ApiError.notFound("tenant");
      c.set("principal", { kind: "bot", tenantId });
      return next();
    }
    if (options.session) {
      const principal = await readSession(c);
      if (principal === "csrf") throw new ApiError("forbidden", CROSS_ORIGIN_MESSAGE);
      if (principal) {
        if (!hasRole(principal.role, options.session)) throw new ApiError("forbidden", roleRefusal(options.session));
        c.set("principal", principal);
        return next();
      }
    }
    // The bot's own operations: a key (valid or not) or a session is not what they take, and saying
    // "Invalid API key." would send a developer to rotate a good one.
    if (options.bot && !options.apiKey && !options.session) throw new ApiError("unauthorized", BOT_ONLY);
    throw notAuthenticated(header === undefined ? "Authentication required." : "Invalid API key.", options, header !== undefined);
  });
}

const botRefusal = {
  unconfigured: "Bot authentication is not configured.",
  malformed:
    "Malformed X-Bot-Auth header: expected t=<unix seconds>,v1=<hex HMAC-SHA256> and/or v2=<hex HMAC-SHA256>, " +
    "or t=<unix seconds>,n=<nonce: 16-64 characters of A-Z a-z 0-9 _ ->,v2=<hex HMAC-SHA256>.",
  nonce_with_v1:
    "Malformed X-Bot-Auth header: a header with a nonce (n=) carries v2 only, never v1: v1 does not cover the nonce. Send t=<unix seconds>,n=<nonce>,v2=<hex HMAC-SHA256>.",
  stale: "The X-Bot-Auth timestamp is outside the allowed 300 s window.",
  signature:
    'Invalid X-Bot-Auth signature: v1 is the hex HMAC-SHA256 of "<t>.<raw body>", v2 of "<t>.<METHOD>.<path>.<raw body>", ' +
    'or of "<t>.<n>.<METHOD>.<path>.<raw body>" when the header carries n=.',
  replay:
    "This signed request was already used. Each signature is accepted once: send a fresh n= nonce per request " +
    "(t=<unix seconds>,n=<nonce>,v2=<hex HMAC-SHA256 of \"<t>.<n>.<METHOD>.<path>.<raw body>\">), so two requests with the same body in the same second differ.",
} as const;

function bodyTenantId(rawBody: string): string | null {
  try {
    const parsed = JSON.parse(rawBody) as unknown;
    const id = parsed && typeof parsed === "object" ? (parsed as { tenant_id?: unknown }).tenant_id : undefined;
    return typeof id === "string" && id.length > 0 && id.length <= 64 ? id : null;
  } catch {
    return null;
  }
}

const lastTouched = new Map<string, number>();

/** Records `last_used_at` off the request path, at most once a minute per key and isolate. */
function touchKey(waitUntil: (work: Promise<unknown>) => void, db: ReturnType<typeof createDb>, keyId: string): void {
  const now = Date.now();
  if ((lastTouched.get(keyId) ?? 0) > now - LAST_USED_GRANULARITY_MS) return;
  lastTouched.set(keyId, now);
  waitUntil(
    db
      .update(apiKeys)
      .set({ lastUsedAt: now })
      .where(eq(apiKeys.id, keyId))
      .run()
      .then(() => undefined, () => undefined),
  );
}

/** The sign-in forms (a magic link's and an invitation's confirmation pages POST to these): login CSRF. */
const SIGN_IN_FORMS = /^\/v1\/auth\/(magic-link|invitation)\/[^/]+$/;

/**
 * A write another origin's page makes with the person's session cookie, or to a sign-in form, is
 * refused before its body is read: a forged form is told it is cross-origin (403), the same answer
 * whatever it carries, never to send JSON instead (415). The routes check again (their own rule).
 */
export const crossOriginWritesFirst = createMiddleware<AppEnv>(async (c, next) => {
  if (!sameOrigin(c) && (getCookie(c, SESSION_COOKIE) !== undefined || SIGN_IN_FORMS.test(c.req.path))) {
    throw new ApiError("forbidden", CROSS_ORIGIN_MESSAGE);
  }
  return next();
});
