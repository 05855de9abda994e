import { Hono, type Context } from "hono";
import { readSession } from "../auth/session";
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
  const session = await readSession(c);
  const signedIn = session !== null && session !== "csrf";
  if (!signedIn && !signingIn) return c.redirect(signInPageUrl(undefined, `${url.pathname}${url.search}`), 302);
  if (signedIn && signingIn) {
    const returnTo = url.searchParams.get("return_to") ?? "";
    return c.redirect(safeReturnTo(returnTo) === returnTo ? returnTo : CONSOLE_HOME, 302);
  }
  return c.body(CONSOLE_SHELL, 200, CONSOLE_HEADERS);
}

export default app;
