import { env } from "cloudflare:workers";
import { signSession } from "../../src/auth/session";
import { memberships, users, type Role } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { db } from "./api";

/**
 * A new dashboard user, a member of `tenantId` with `role` (owner unless said), and the `Cookie`
 * header of their signed session.
 */
export async function signIn(tenantId: string, role: Role = "owner"): Promise<{ userId: string; email: string; cookie: string }> {
  const userId = newId("user");
  const email = `${userId.toLowerCase()}@example.test`;
  const now = Date.now();
  await db().batch([
    db().insert(users).values({ id: userId, defaultTenantId: tenantId, email, createdAt: now }),
    db().insert(memberships).values({ tenantId, userId, role, createdAt: now }),
  ]);
  return { userId, email, cookie: `svc_session=${await signSession(env, { userId, tenantId }, now)}` };
}

/**
 * Headers of a dashboard request made by a non-browser client holding the session cookie (no
 * `Origin`, no `Sec-Fetch-*`: what a browser sends is the browser suite's to show).
 */
export function dashboard(cookie: string, extra: Record<string, string> = {}): Record<string, string> {
  return { Cookie: cookie, ...extra };
}

/** `name=value` of a cookie the response sets (undefined when it sets none). */
export function setCookie(res: Response, name: string): { pair: string; attributes: string } | undefined {
  for (const header of res.headers.getSetCookie()) {
    const [pair, ...attributes] = header.split(";");
    if (pair?.trim().startsWith(`${name}=`)) return { pair: pair.trim(), attributes: attributes.join(";").trim() };
  }
  return undefined;
}
