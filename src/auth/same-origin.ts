import type { Context } from "hono";
import type { AppEnv } from "../env";
import { settings } from "../env";

/*
 * The same-origin rule for cookie-authenticated writes and sign-in forms (CSRF and login CSRF),
 * decided from what browsers send, as Go 1.25's `http.CrossOriginProtection` does:
 *
 * 1. GET, HEAD and OPTIONS pass: they change nothing here.
 * 2. `Sec-Fetch-Site` (every current browser sends it, and no page can set or remove it): only
 *    `same-origin` (our own page) and `none` (the person typed the address or used a bookmark)
 *    pass; `same-site` (a sibling origin: another port or subdomain) and `cross-site` are refused.
 *    This is what lets the magic-link page's form through: that page is served with
 *    `Referrer-Policy: no-referrer`, so its POST carries `Origin: null`, and `Sec-Fetch-Site:
 *    same-origin` is then the only header that says where it came from.
 * 3. Without `Sec-Fetch-Site` (a browser older than 2023), `Origin` must be this service's origin,
 *    `PUBLIC_BASE_URL`'s; `null` never matches. Never the request URL's own: any hostname routed to
 *    the Worker (a workers.dev name, a second custom domain) would otherwise be a second "same" origin
 *    whose pages the console's cookie does not belong to.
 * 4. Neither header: not a browser (curl, a server-side client). Such a caller holds the cookie
 *    itself, so there is no victim's browser whose ambient cookie it could borrow.
 */

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export interface RequestOrigins {
  method: string;
  /** The `Sec-Fetch-Site` header, if sent. */
  secFetchSite: string | undefined;
  /** The `Origin` header, if sent (`"null"` after a no-referrer page or from an opaque origin). */
  origin: string | undefined;
  /** This service's origin: `PUBLIC_BASE_URL`'s. */
  publicOrigin: string;
}

/** Whether a request may act with the caller's cookie (the pure rule above). */
export function isSameOriginRequest(request: RequestOrigins): boolean {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return true;
  if (request.secFetchSite !== undefined) return request.secFetchSite === "same-origin" || request.secFetchSite === "none";
  if (request.origin === undefined) return true;
  return request.origin === request.publicOrigin;
}

/** The rule applied to a hono request. */
export function sameOrigin(c: Context<AppEnv>): boolean {
  return isSameOriginRequest({
    method: c.req.method,
    secFetchSite: c.req.header("Sec-Fetch-Site"),
    origin: c.req.header("Origin"),
    publicOrigin: new URL(settings(c.env).baseUrl).origin,
  });
}

/** The one refusal every caller answers with. */
export const CROSS_ORIGIN_MESSAGE = "Cross-origin request refused: this action must come from the console's own pages.";
