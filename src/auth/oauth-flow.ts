import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import * as oauth from "oauth4webapi";
import type { AppEnv } from "../env";
import { settings } from "../env";
import { signToken, verifyToken } from "../lib/crypto";
import type { OAuthFlow } from "../providers/identity";
import { secureCookies } from "./session";

/**
 * The OAuth state between `/login` and `/callback` lives in the browser: a signed (HMAC), HttpOnly,
 * path-scoped cookie that expires with the flow. SameSite=Lax so it rides the top-level redirect
 * back from the provider.
 */
export const FLOW_COOKIE = "svc_oauth";
const FLOW_TTL_SECONDS = 10 * 60;
const FLOW_PATH = "/v1/auth/";
const PURPOSE = "oauth-flow";

export function newFlow(provider: string, returnTo: string): OAuthFlow {
  return {
    provider,
    state: oauth.generateRandomState(),
    nonce: oauth.generateRandomNonce(),
    codeVerifier: oauth.generateRandomCodeVerifier(),
    returnTo,
  };
}

export async function saveFlow(c: Context<AppEnv>, flow: OAuthFlow, now = Date.now()): Promise<void> {
  const token = await signToken(settings(c.env).signingSecret, PURPOSE, { ...flow, exp: now + FLOW_TTL_SECONDS * 1000 });
  setCookie(c, FLOW_COOKIE, token, { httpOnly: true, secure: secureCookies(c.env), sameSite: "Lax", path: FLOW_PATH, maxAge: FLOW_TTL_SECONDS });
}

/** The flow this browser started for `provider`, if its cookie is intact and unexpired; the cookie is cleared either way. */
export async function takeFlow(c: Context<AppEnv>, provider: string, now = Date.now()): Promise<OAuthFlow | null> {
  const token = getCookie(c, FLOW_COOKIE);
  deleteCookie(c, FLOW_COOKIE, { path: FLOW_PATH, secure: secureCookies(c.env), httpOnly: true, sameSite: "Lax" });
  if (!token) return null;
  const stored = (await verifyToken(settings(c.env).signingSecret, PURPOSE, token)) as (OAuthFlow & { exp?: unknown }) | null;
  if (!stored || typeof stored.exp !== "number" || stored.exp <= now || stored.provider !== provider) return null;
  const { exp: _exp, ...flow } = stored;
  return flow;
}

/**
 * Where to land after sign-in: a path on this service (never another host, so the login cannot be
 * turned into an open redirect); `/v1/me` by default.
 */
export function safeReturnTo(value: string | undefined): string {
  if (value && /^\/(?![/\\])[^\s]*$/.test(value)) return value;
  return "/v1/me";
}
