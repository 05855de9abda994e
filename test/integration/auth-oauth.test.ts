import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { tenants, users } from "../../src/db/schema";
import { openFlow } from "../../src/auth/oauth-flow";
import { isLocalRequest } from "../../src/env";
import { base64UrlDecode, base64UrlEncode } from "../../src/lib/crypto";
import { identityProvider } from "../../src/providers/sign-in-providers";
import { BASE, call, callJson, db } from "../helpers/api";
import { setCookie } from "../helpers/session";

// The whole authorization-code flow against a real OpenID Connect provider on loopback
// (test/fakes/oidc.ts): our login → the provider's /authorize → our callback → session cookie.

let n = 0;
const person = () => `person${Date.now().toString(36)}${(n += 1)}`;

async function startLogin(query: string) {
  const res = await call(`/v1/auth/oidc/login?${query}`, { redirect: "manual" });
  await res.text();
  expect(res.status).toBe(302);
  const flow = setCookie(res, "svc_oauth");
  expect(flow).toBeDefined();
  return { authorizeUrl: new URL(res.headers.get("Location")!), flowCookie: flow!.pair };
}

/** The provider authenticates the browser at once and redirects back to our callback. */
async function authorize(url: URL): Promise<URL> {
  const res = await fetch(url, { redirect: "manual" });
  await res.text();
  expect(res.status).toBe(302);
  return new URL(res.headers.get("Location")!);
}

async function finish(callbackUrl: URL, flowCookie: string) {
  const res = await call(`${callbackUrl.pathname}${callbackUrl.search}`, { headers: { Cookie: flowCookie }, redirect: "manual" });
  const text = await res.text();
  return { res, body: text && res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text };
}

async function signInThroughProvider(who: string, extraQuery = "") {
  const { authorizeUrl, flowCookie } = await startLogin(`login_hint=${who}${extraQuery}`);
  return finish(await authorize(authorizeUrl), flowCookie);
}

describe("OAuth 2.0 / OIDC sign-in", () => {
  it("runs the authorization-code flow with PKCE, state and nonce, and the first sign-in creates user and tenant", async () => {
    const who = person();
    const { authorizeUrl, flowCookie } = await startLogin(`login_hint=${who}`);
    expect(authorizeUrl.origin).toBe(new URL(env.OIDC_ISSUER!).origin);
    const params = authorizeUrl.searchParams;
    expect(params.get("response_type")).toBe("code");
    expect(params.get("client_id")).toBe(env.OIDC_CLIENT_ID);
    expect(params.get("redirect_uri")).toBe("http://localhost:8787/v1/auth/oidc/callback");
    expect(params.get("code_challenge_method")).toBe("S256");
    expect(params.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.get("state")).toBeTruthy();
    expect(params.get("nonce")).toBeTruthy();
    expect(params.get("scope")).toBe("openid email profile");

    const { res } = await finish(await authorize(authorizeUrl), flowCookie);
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/v1/me");
    const session = setCookie(res, "svc_session");
    expect(session).toBeDefined();
    expect(session!.attributes).toMatch(/HttpOnly/i);
    expect(session!.attributes).toMatch(/SameSite=Lax/i);
    expect(session!.attributes).toMatch(/Path=\//);
    expect(session!.attributes).not.toMatch(/Secure/i); // plain-http localhost only
    expect(setCookie(res, "svc_oauth")?.attributes).toMatch(/Max-Age=0/); // the flow is spent

    const me = await callJson("/v1/me", { headers: { Cookie: session!.pair } });
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ email: `${who}@example.test`, display_name: `Test ${who}` });
    expect(me.body.user.id).toMatch(/^usr_/);
    expect(me.body.tenant.id).toMatch(/^tnt_/);
    expect(me.body.tenant.slug).toBe(`test-${who}`);

    // A second sign-in of the same person reuses the user and tenant.
    const again = await signInThroughProvider(who);
    expect(again.res.status).toBe(303);
    const me2 = await callJson("/v1/me", { headers: { Cookie: setCookie(again.res, "svc_session")!.pair } });
    expect(me2.body.user.id).toBe(me.body.user.id);
    expect(me2.body.tenant.id).toBe(me.body.tenant.id);
    const owned = await db().select().from(users).where(eq(users.email, `${who}@example.test`));
    expect(owned).toHaveLength(1);
  });

  it("keeps the flow (PKCE verifier, nonce, state) in an encrypted cookie: unreadable and tamper-evident", async () => {
    const { authorizeUrl, flowCookie } = await startLogin(`login_hint=${person()}`);
    const value = flowCookie.slice("svc_oauth=".length);
    expect(value.split(".")).toHaveLength(5); // compact JWE
    const header = JSON.parse(new TextDecoder().decode(base64UrlDecode(value.split(".")[0]!)!));
    expect(header).toEqual({ alg: "dir", enc: "A256GCM" });
    // Nothing of the flow shows in any part of the cookie, decoded or not.
    const decoded = value.split(".").map((part) => new TextDecoder().decode(base64UrlDecode(part) ?? new Uint8Array()));
    for (const secret of [authorizeUrl.searchParams.get("state")!, authorizeUrl.searchParams.get("nonce")!]) {
      expect(value).not.toContain(secret);
      for (const part of decoded) expect(part).not.toContain(secret);
    }
    for (const part of decoded) expect(part).not.toMatch(/codeVerifier|returnTo/);
    // It still holds the verifier whose S256 challenge the provider was given.
    const flow = await openFlow(env, value);
    const challenge = base64UrlEncode(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(flow!.codeVerifier))));
    expect(challenge).toBe(authorizeUrl.searchParams.get("code_challenge"));
    // Any change to the ciphertext or tag is refused.
    const parts = value.split(".");
    const flip = (text: string) => text.slice(0, 5) + (text[5] === "A" ? "B" : "A") + text.slice(6);
    expect(await openFlow(env, [parts[0], parts[1], parts[2], flip(parts[3]!), parts[4]].join("."))).toBeNull();
    expect(await openFlow(env, [parts[0], parts[1], parts[2], parts[3], flip(parts[4]!)].join("."))).toBeNull();
    // Expired after ten minutes.
    expect(await openFlow(env, value, Date.now() + 10 * 60 * 1000 + 5_000)).toBeNull();
  });

  it("lands on a return_to path of this service, never on another host", async () => {
    const inside = await signInThroughProvider(person(), `&return_to=${encodeURIComponent("/v1/api-keys")}`);
    expect(inside.res.headers.get("Location")).toBe("/v1/api-keys");
    for (const outside of ["//evil.example/x", "https://evil.example/", "/\\evil.example"]) {
      const res = await signInThroughProvider(person(), `&return_to=${encodeURIComponent(outside)}`);
      expect(res.res.headers.get("Location")).toBe("/v1/me");
    }
  });

  it("refuses a callback whose state does not match the browser's flow", async () => {
    const { authorizeUrl, flowCookie } = await startLogin(`login_hint=${person()}`);
    const back = await authorize(authorizeUrl);
    back.searchParams.set("state", "attacker-chosen-state");
    const { res, body } = await finish(back, flowCookie);
    expect(res.status).toBe(401);
    expect(body.error.code).toBe("unauthorized");
    expect(body.error.message).toMatch(/state/);
    expect(setCookie(res, "svc_session")).toBeUndefined();
  });

  it("refuses a code bound to another PKCE challenge (the provider rejects our verifier)", async () => {
    const { authorizeUrl, flowCookie } = await startLogin(`login_hint=${person()}`);
    // Someone swaps the challenge on the way to the provider: the code is bound to their challenge.
    authorizeUrl.searchParams.set("code_challenge", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    const { res, body } = await finish(await authorize(authorizeUrl), flowCookie);
    expect(res.status).toBe(401);
    expect(body.error.message).toMatch(/refused the authorization code/);
    expect(setCookie(res, "svc_session")).toBeUndefined();
  });

  it("refuses a callback without the flow cookie, with a forged one, or for another provider", async () => {
    const { authorizeUrl, flowCookie } = await startLogin(`login_hint=${person()}`);
    const back = await authorize(authorizeUrl);
    const none = await finish(back, "");
    expect(none.res.status).toBe(401);
    const [name, value] = flowCookie.split("=");
    // One character of the tag changed for a different one (the last characters of base64url carry
    // padding bits, so editing them could leave the decoded bytes as they were).
    const at = value!.length - 5;
    const forged = await finish(back, `${name}=${value!.slice(0, at)}${value![at] === "A" ? "B" : "A"}${value!.slice(at + 1)}`);
    expect(forged.res.status).toBe(401);
    const devBack = new URL(back);
    devBack.pathname = "/v1/auth/dev/callback";
    const crossed = await finish(devBack, flowCookie);
    expect(crossed.res.status).toBe(401);
  });

  it("refuses a callback carrying the provider's error", async () => {
    const { authorizeUrl, flowCookie } = await startLogin(`login_hint=${person()}`);
    const back = new URL(authorizeUrl.searchParams.get("redirect_uri")!);
    back.searchParams.set("error", "access_denied");
    back.searchParams.set("state", authorizeUrl.searchParams.get("state")!);
    const { res, body } = await finish(back, flowCookie);
    expect(res.status).toBe(401);
    expect(body.error.message).toMatch(/access_denied/);
  });

  it("answers 404 for an unknown provider; the dev provider exists only in local development", async () => {
    const unknown = await callJson("/v1/auth/github/login");
    expect(unknown.status).toBe(404);
    // A person's browser (an old SSO bookmark) lands on the sign-in page, which says so, not on JSON.
    const browser = await call("/v1/auth/github/login?return_to=/console/team", { redirect: "manual", headers: { Accept: "text/html,application/xhtml+xml" } });
    await browser.text();
    expect(browser.status).toBe(303);
    const to = new URL(browser.headers.get("Location")!, BASE);
    expect([to.pathname, to.searchParams.get("error"), to.searchParams.get("return_to")]).toEqual(["/console/sign-in", "unavailable", "/console/team"]);
    expect(isLocalRequest({ ...env, ENVIRONMENT: "staging" } as Env, BASE)).toBe(false);
    expect(isLocalRequest({ ...env, ENVIRONMENT: "production" } as Env, BASE)).toBe(false);
    expect(identityProvider(env, "dev", { localRequest: false })).toBeNull();
    expect(identityProvider(env, "dev", { localRequest: isLocalRequest(env, BASE) })?.name).toBe("dev");
    expect(identityProvider({ ...env, OIDC_ISSUER: undefined } as Env, "oidc", { localRequest: true })).toBeNull();
  });

  it("signs in locally through the dev provider (state still checked)", async () => {
    const email = `${person()}@dev.test`;
    const login = await call(`/v1/auth/dev/login?login_hint=${encodeURIComponent(email)}`, { redirect: "manual" });
    await login.text();
    expect(login.status).toBe(302);
    const back = new URL(login.headers.get("Location")!);
    expect(back.pathname).toBe("/v1/auth/dev/callback");
    const flowCookie = setCookie(login, "svc_oauth")!.pair;
    const tampered = new URL(back);
    tampered.searchParams.set("state", "nope");
    expect((await finish(tampered, flowCookie)).res.status).toBe(401);

    const login2 = await call(`/v1/auth/dev/login?login_hint=${encodeURIComponent(email)}`, { redirect: "manual" });
    await login2.text();
    const { res } = await finish(new URL(login2.headers.get("Location")!), setCookie(login2, "svc_oauth")!.pair);
    expect(res.status).toBe(303);
    const me = await callJson("/v1/me", { headers: { Cookie: setCookie(res, "svc_session")!.pair } });
    expect(me.body.user.email).toBe(email);
    const tenant = await db().select().from(tenants).where(eq(tenants.id, me.body.tenant.id)).get();
    expect(tenant).toBeDefined();
  });
});
