import { Hono, type Context } from "hono";
import { getCookie } from "hono/cookie";
import { readSession, SESSION_COOKIE, verifySession } from "../auth/session";
import { CONSOLE_HOME, CONSOLE_SIGN_IN, signInPageUrl } from "../console/paths";
import { CONSOLE_HEADERS, CONSOLE_SHELL } from "../console/shell";
import type { AppEnv } from "../env";
import { safeReturnTo } from "../auth/oauth-flow";

/**
 * `GET /console` and every path below it: the operator console's shell (one HTML page; the client
 * bundle routes and calls the public API). Signed out, any page but the sign-in page redirects to it
 * with `return_to`; signed in, the sign-in page forwards to where the operator was going.
 */
const app = new Hono<AppEnv>();

app.get("/console", (c) => shell(c));
app.get("/console/*", (c) => shell(c));

async function shell(c: Context<AppEnv>): Promise<Response> {
  const url = new URL(c.req.url);
  const signingIn = url.pathname === CONSOLE_SIGN_IN;
  // The shell holds nothing private, so a valid signature is enough to serve a console page (no D1
  // read on its critical path): a session voided by a logout is refused by the API reads the page
  // makes, and the client comes here to sign-in, which checks the session fully (else a voided but
  // well-signed cookie would bounce between the two).
  const signedIn = signingIn ? await hasLiveSession(c) : await hasSignedSession(c);
  if (!signedIn && !signingIn) return c.redirect(signInPageUrl(undefined, `${url.pathname}${url.search}`), 302);
  if (signedIn && signingIn) {
    const returnTo = url.searchParams.get("return_to") ?? "";
    return c.redirect(safeReturnTo(returnTo) === returnTo ? returnTo : CONSOLE_HOME, 302);
  }
  return c.body(CONSOLE_SHELL, 200, CONSOLE_HEADERS);
}

export default app;

async function hasSignedSession(c: Context<AppEnv>): Promise<boolean> {
  const token = getCookie(c, SESSION_COOKIE);
  return token !== undefined && (await verifySession(c.env, token)) !== null;
}

async function hasLiveSession(c: Context<AppEnv>): Promise<boolean> {
  const session = await readSession(c);
  return session !== null && session !== "csrf";
}
