import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { CookieOptions } from "hono/utils/cookie";
import { and, eq, inArray } from "drizzle-orm";
import { jwtVerify, SignJWT } from "jose";
import { createDb, type Db } from "../db/client";
import { memberships, users } from "../db/schema";
import type { AppEnv } from "../env";
import { settings } from "../env";
import { isId } from "../lib/ids";
import type { SessionPrincipal } from "./principal";
import { isRole, type Role } from "./roles";
import { sameOrigin } from "./same-origin";

export const SESSION_COOKIE = "svc_session";
export const SESSION_TTL_SECONDS = 8 * 60 * 60;
const ISSUER = "verification-service";
const AUDIENCE = "dashboard";
const encoder = new TextEncoder();

function sessionKey(env: Env): Uint8Array {
  return encoder.encode(settings(env).sessionSecret);
}

export async function signSession(env: Env, claims: { userId: string; tenantId: string }, now = Date.now()): Promise<string> {
  const iat = Math.floor(now / 1000);
  // `iat_ms`: the issue time to the millisecond, compared with the user's `sessions_valid_after`
  // (a sign-in in the same second as a logout must still count).
  return new SignJWT({ tid: claims.tenantId, iat_ms: now })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(claims.userId)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(iat + SESSION_TTL_SECONDS)
    .sign(sessionKey(env));
}

export interface SessionClaims {
  userId: string;
  tenantId: string;
  issuedAtMs: number;
}

/**
 * Verifies a session JWT's signature and claims: HS256 only, our issuer and audience, not expired.
 * Null when anything is off. Whether the user has since signed out is `sessionStillValid`'s question.
 */
export async function verifySession(env: Env, token: string): Promise<SessionClaims | null> {
  try {
    const { payload } = await jwtVerify(token, sessionKey(env), { algorithms: ["HS256"], issuer: ISSUER, audience: AUDIENCE, requiredClaims: ["exp"] });
    const userId = payload.sub;
    const tenantId = payload.tid;
    if (typeof userId !== "string" || !isId("user", userId) || typeof tenantId !== "string" || !isId("tenant", tenantId)) return null;
    const issuedAtMs = typeof payload.iat_ms === "number" ? payload.iat_ms : (payload.iat ?? 0) * 1000;
    return { userId, tenantId, issuedAtMs };
  } catch {
    return null;
  }
}

export interface SessionMember {
  role: Role;
  /** The user's email, else phone. */
  label: string | null;
}

/**
 * The session's user as a member of its tenant, or null when the session no longer counts: the user
 * signed out (everywhere) after it was issued, is no longer a member of that tenant, joined it again
 * after it was issued (a session of the earlier membership), or the tenant's "sign out everywhere"
 * came after it. One D1 read: the user and their membership in the session's tenant.
 */
export async function sessionMember(db: Db, claims: SessionClaims): Promise<SessionMember | null> {
  const row = await db
    .select({
      email: users.email,
      phone: users.phone,
      userValidAfter: users.sessionsValidAfter,
      role: memberships.role,
      joinedAt: memberships.createdAt,
      memberValidAfter: memberships.sessionsValidAfter,
    })
    .from(users)
    .leftJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.tenantId, claims.tenantId)))
    .where(eq(users.id, claims.userId))
    .get();
  if (!row || row.role === null || row.joinedAt === null || !isRole(row.role)) return null;
  const issued = claims.issuedAtMs;
  if (issued < row.joinedAt) return null;
  if (row.userValidAfter !== null && issued <= row.userValidAfter) return null;
  if (row.memberValidAfter !== null && issued <= row.memberValidAfter) return null;
  return { role: row.role, label: row.email ?? row.phone ?? null };
}

/** Voids every session of these users issued up to now, in every tenant (logout). */
export async function endSessionsOf(db: Db, userIds: string[], now = Date.now()): Promise<void> {
  if (userIds.length === 0) return;
  await db.update(users).set({ sessionsValidAfter: now }).where(inArray(users.id, userIds)).run();
}

/** The session principal when a valid cookie is present; CSRF failures surface as `forbidden`. */
export async function readSession(c: Context<AppEnv>): Promise<SessionPrincipal | "csrf" | null> {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token) return null;
  const session = await verifySession(c.env, token);
  if (!session) return null;
  if (!sameOrigin(c)) return "csrf";
  const member = await sessionMember(createDb(c.env.DB), session);
  if (!member) return null;
  return { kind: "session", tenantId: session.tenantId, userId: session.userId, role: member.role, label: member.label };
}

/** Cookies are `Secure` everywhere but a plain-http loopback base URL (local development). */
export function secureCookies(env: Env): boolean {
  const url = new URL(settings(env).baseUrl);
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  return !(loopback && url.protocol === "http:");
}

function sessionCookieOptions(env: Env): CookieOptions {
  return { httpOnly: true, secure: secureCookies(env), sameSite: "Lax", path: "/" };
}

/** Signs the user in: sets `svc_session` (HttpOnly, SameSite=Lax, Secure outside localhost). */
export async function startSession(c: Context<AppEnv>, claims: { userId: string; tenantId: string }): Promise<void> {
  const token = await signSession(c.env, claims);
  setCookie(c, SESSION_COOKIE, token, { ...sessionCookieOptions(c.env), maxAge: SESSION_TTL_SECONDS });
}

/** Clears this browser's cookie (the server-side voiding is `endSessionsOf`). */
export function clearSessionCookie(c: Context<AppEnv>): void {
  deleteCookie(c, SESSION_COOKIE, sessionCookieOptions(c.env));
}
