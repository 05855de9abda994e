import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { EncryptJWT, jwtDecrypt } from "jose";
import * as oauth from "oauth4webapi";
import type { AppEnv } from "../env";
import { settings } from "../env";
import type { OAuthFlow } from "../providers/identity";
import { secureCookies } from "./session";

/**
 * The OAuth state between `/login` and `/callback` lives in the browser: an encrypted JWT (JWE,
 * `dir` + A256GCM, so the PKCE verifier and nonce are unreadable and tamper-evident), HttpOnly,
 * path-scoped, expiring with the flow. SameSite=Lax so it rides the top-level redirect back from
 * the provider.
 */
export const FLOW_COOKIE = "svc_oauth";
const FLOW_TTL_SECONDS = 10 * 60;
const FLOW_PATH = "/v1/auth/";
const AUDIENCE = "oauth-flow";
const encoder = new TextEncoder();

export function newFlow(provider: string, returnTo: string): OAuthFlow {
  return {
    provider,
    state: oauth.generateRandomState(),
    nonce: oauth.generateRandomNonce(),
    codeVerifier: oauth.generateRandomCodeVerifier(),
    returnTo,
  };
}

/** The cookie's 256-bit AES key: HKDF-SHA256 of SESSION_SECRET, bound to this one purpose. */
async function flowKey(env: Env): Promise<Uint8Array> {
  const material = await crypto.subtle.importKey("raw", encoder.encode(settings(env).sessionSecret), "HKDF", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode("svc_oauth cookie A256GCM") },
    material,
    256,
  );
  return new Uint8Array(bits);
}

export async function sealFlow(env: Env, flow: OAuthFlow, now = Date.now()): Promise<string> {
  const iat = Math.floor(now / 1000);
  return new EncryptJWT({ ...flow })
    .setProtectedHeader({ alg: "dir", enc: "A256GCM" })
    .setAudience(AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(iat + FLOW_TTL_SECONDS)
    .encrypt(await flowKey(env));
}

/** The flow inside a cookie value, if it decrypts, is unexpired and is whole; else null. */
export async function openFlow(env: Env, token: string, now = Date.now()): Promise<OAuthFlow | null> {
  try {
    const { payload } = await jwtDecrypt(token, await flowKey(env), {
      audience: AUDIENCE,
      keyManagementAlgorithms: ["dir"],
      contentEncryptionAlgorithms: ["A256GCM"],
      currentDate: new Date(now),
    });
    const { provider, state, nonce, codeVerifier, returnTo } = payload;
    if ([provider, state, nonce, codeVerifier, returnTo].some((v) => typeof v !== "string")) return null;
    return { provider, state, nonce, codeVerifier, returnTo } as OAuthFlow;
  } catch {
    return null;
  }
}

export async function saveFlow(c: Context<AppEnv>, flow: OAuthFlow, now = Date.now()): Promise<void> {
  setCookie(c, FLOW_COOKIE, await sealFlow(c.env, flow, now), {
    httpOnly: true,
    secure: secureCookies(c.env),
    sameSite: "Lax",
    path: FLOW_PATH,
    maxAge: FLOW_TTL_SECONDS,
  });
}

/** The flow this browser started for `provider`, if its cookie is intact and unexpired; the cookie is cleared either way. */
export async function takeFlow(c: Context<AppEnv>, provider: string, now = Date.now()): Promise<OAuthFlow | null> {
  const token = getCookie(c, FLOW_COOKIE);
  deleteCookie(c, FLOW_COOKIE, { path: FLOW_PATH, secure: secureCookies(c.env), httpOnly: true, sameSite: "Lax" });
  if (!token) return null;
  const flow = await openFlow(c.env, token, now);
  return flow && flow.provider === provider ? flow : null;
}

/**
 * Where to land after sign-in: a path on this service (never another host, so the login cannot be
 * turned into an open redirect), with no space or control character (it goes into `Location` as it
 * is, and browsers read some of those as separators); `/v1/me` by default.
 */
export function safeReturnTo(value: string | undefined): string {
  if (value && /^\/(?![/\\])[^\s\p{Cc}]*$/u.test(value)) return value;
  return "/v1/me";
}
