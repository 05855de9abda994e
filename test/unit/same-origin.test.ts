import { env } from "cloudflare:workers";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { isSameOriginRequest, sameOrigin, type RequestOrigins } from "../../src/auth/same-origin";
import type { AppEnv } from "../../src/env";

/*
 * The same-origin rule as a table of what browsers send (Fetch Metadata and the Fetch standard's
 * "serializing a request origin"). These are values handed to a pure function, not requests: the
 * flows themselves are driven by Chromium in test/browser/sign-in.test.ts, where the browser picks
 * its own headers.
 */

const OWN = "https://verify.example.com";

const cases: Array<[string, Omit<RequestOrigins, "publicOrigin">, boolean]> = [
  ["our page's fetch or form POST", { method: "POST", secFetchSite: "same-origin", origin: "https://verify.example.com" }, true],
  ["our no-referrer page's form POST (the magic-link confirmation)", { method: "POST", secFetchSite: "same-origin", origin: "null" }, true],
  ["a POST the person started from the address bar or a bookmark", { method: "POST", secFetchSite: "none", origin: undefined }, true],
  ["a form on a sibling origin (another port or subdomain of the site)", { method: "POST", secFetchSite: "same-site", origin: "https://evil.verify.example.com" }, false],
  ["a form on another site", { method: "POST", secFetchSite: "cross-site", origin: "https://evil.example" }, false],
  ["a no-referrer page on another site", { method: "POST", secFetchSite: "cross-site", origin: "null" }, false],
  ["a sandboxed frame (opaque origin) on another site", { method: "DELETE", secFetchSite: "cross-site", origin: "null" }, false],
  ["an unknown Sec-Fetch-Site value", { method: "PATCH", secFetchSite: "same-everything", origin: "https://verify.example.com" }, false],
  ["a browser without Fetch Metadata, from our page", { method: "POST", secFetchSite: undefined, origin: "https://verify.example.com" }, true],
  ["a browser without Fetch Metadata, from another site", { method: "POST", secFetchSite: undefined, origin: "https://evil.example" }, false],
  ["a browser without Fetch Metadata, from a look-alike host", { method: "POST", secFetchSite: undefined, origin: "https://verify.example.com.evil.example" }, false],
  ["a browser without Fetch Metadata, from a no-referrer page", { method: "POST", secFetchSite: undefined, origin: "null" }, false],
  ["a non-browser client (curl, a back end): neither header", { method: "DELETE", secFetchSite: undefined, origin: undefined }, true],
  ["a cross-site navigation (GET changes nothing)", { method: "GET", secFetchSite: "cross-site", origin: undefined }, true],
  ["a cross-site HEAD", { method: "HEAD", secFetchSite: "cross-site", origin: "https://evil.example" }, true],
];

describe("the same-origin rule", () => {
  it.each(cases)("%s", (_what, request, allowed) => {
    expect(isSameOriginRequest({ ...request, publicOrigin: OWN })).toBe(allowed);
  });

  it("without Sec-Fetch-Site, only PUBLIC_BASE_URL's origin is this service: not the request URL's (another hostname routed to the same Worker)", async () => {
    const app = new Hono<AppEnv>().post("/write", (c) => c.json({ allowed: sameOrigin(c) }));
    const publicOrigin = new URL(env.PUBLIC_BASE_URL!).origin;
    const verdict = async (url: string, origin: string) =>
      ((await (await app.request(url, { method: "POST", headers: { Origin: origin } }, env)).json()) as { allowed: boolean }).allowed;
    // A page served from a second hostname of the Worker, in a browser without Fetch Metadata.
    expect(await verdict("http://second-host.example/write", "http://second-host.example")).toBe(false);
    expect(await verdict("http://second-host.example/write", publicOrigin)).toBe(true);
    expect(await verdict(`${publicOrigin}/write`, publicOrigin)).toBe(true);
  });
});
