import { env } from "cloudflare:workers";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { SESSION_TTL_SECONDS, signSession, verifySession } from "../../src/auth/session";
import { call, callJson, createVerification, seedTenant } from "../helpers/api";
import { dashboard, setCookie, signIn } from "../helpers/session";

const secret = new TextEncoder().encode(env.SESSION_SECRET!);

async function me(cookie: string) {
  return callJson("/v1/me", { headers: { Cookie: cookie } });
}

describe("dashboard session (svc_session, HS256 JWT)", () => {
  it("accepts a valid session and refuses tampered, expired and wrong-algorithm tokens", async () => {
    const t = await seedTenant();
    const { userId, cookie } = await signIn(t.id);
    const ok = await me(cookie);
    expect(ok.status).toBe(200);
    expect(ok.body.user.id).toBe(userId);
    expect(ok.body.tenant).toEqual({ id: t.id, slug: t.slug, display_name: expect.any(String) });

    const token = cookie.slice("svc_session=".length);
    const [header, payload, signature] = token.split(".");

    // Tampered: another tenant id in the payload, signature unchanged.
    const claims = JSON.parse(atob(payload!.replace(/-/g, "+").replace(/_/g, "/")));
    const forgedPayload = btoa(JSON.stringify({ ...claims, tid: "tnt_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" })).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
    expect((await me(`svc_session=${header}.${forgedPayload}.${signature}`)).status).toBe(401);
    // Tampered signature: change a character in the middle (the last base64url character of a
    // 32-byte HMAC carries two padding bits, so changing it may not change the bytes at all).
    const middle = Math.floor(signature!.length / 2);
    const flipped = signature!.slice(0, middle) + (signature![middle] === "A" ? "B" : "A") + signature!.slice(middle + 1);
    expect((await me(`svc_session=${header}.${payload}.${flipped}`)).status).toBe(401);

    // Expired: signed 1 s past the lifetime ago.
    const old = await signSession(env, { userId, tenantId: t.id }, Date.now() - (SESSION_TTL_SECONDS + 1) * 1000);
    expect(await verifySession(env, old)).toBeNull();
    expect((await me(`svc_session=${old}`)).status).toBe(401);

    // Wrong algorithm: same secret, same claims, HS512; and an unsigned `alg: none` token.
    const now = Math.floor(Date.now() / 1000);
    const hs512 = await new SignJWT({ tid: t.id })
      .setProtectedHeader({ alg: "HS512" })
      .setSubject(userId)
      .setIssuer("verification-service")
      .setAudience("dashboard")
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(secret);
    expect((await me(`svc_session=${hs512}`)).status).toBe(401);
    const b64 = (o: unknown) => btoa(JSON.stringify(o)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
    const none = `${b64({ alg: "none", typ: "JWT" })}.${b64({ ...claims, exp: now + 600 })}.`;
    expect((await me(`svc_session=${none}`)).status).toBe(401);

    // Another issuer's token signed with our secret (e.g. a different service sharing a key by mistake).
    const foreign = await new SignJWT({ tid: t.id }).setProtectedHeader({ alg: "HS256" }).setSubject(userId).setIssuer("elsewhere").setAudience("dashboard").setExpirationTime(now + 600).sign(secret);
    expect((await me(`svc_session=${foreign}`)).status).toBe(401);

    // Our issuer and key but no expiry (security probe of 2026-12-07: accepted): a session always ends.
    const endless = await new SignJWT({ tid: t.id }).setProtectedHeader({ alg: "HS256" }).setSubject(userId).setIssuer("verification-service").setAudience("dashboard").setIssuedAt(now).sign(secret);
    expect((await me(`svc_session=${endless}`)).status).toBe(401);

    // Every refusal is the same 401 body.
    const refused = await me("svc_session=garbage");
    expect(refused.body.error.code).toBe("unauthorized");
  });

  it("a valid API key on a session-only route is 403 forbidden (it needs a dashboard session); a bad key stays 401", async () => {
    const t = await seedTenant();
    const sessionOnly = [["GET", "/v1/me"], ["POST", "/v1/api-keys"], ["GET", "/v1/webhook-secret"], ["POST", "/v1/auth/logout-everywhere"], ["POST", "/v1/auth/logout"]] as const;
    for (const [method, path] of sessionOnly) {
      for (const key of [t.key, t.publishableKey]) {
        const res = await callJson(path, { method, key, ...(method === "POST" ? { body: {} } : {}) });
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body.error).toEqual({ code: "forbidden", message: "This operation needs a dashboard session: API keys cannot use it." });
      }
      const bad = await callJson(path, { method, key: "pk_test_notakeyatallnotakeyatallnotakeyatall" });
      expect(bad.status, `${method} ${path}`).toBe(401);
      expect(bad.body.error.code).toBe("unauthorized");
    }
  });

  it("logs out by clearing the cookie", async () => {
    const t = await seedTenant();
    const { cookie } = await signIn(t.id);
    const res = await call("/v1/auth/logout", { method: "POST", headers: dashboard(cookie) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ signed_out: true });
    const cleared = setCookie(res, "svc_session");
    expect(cleared?.pair).toBe("svc_session=");
    expect(cleared?.attributes).toMatch(/Max-Age=0/);
  });

  it("logout voids the session token itself (a copy of the cookie no longer works), and only that user's", async () => {
    const t = await seedTenant();
    const alice = await signIn(t.id);
    const aliceLaptop = `svc_session=${await signSession(env, { userId: alice.userId, tenantId: t.id })}`;
    const bob = await signIn(t.id);
    expect((await me(alice.cookie)).status).toBe(200);
    const out = await call("/v1/auth/logout", { method: "POST", headers: dashboard(alice.cookie) });
    await out.text();
    expect(out.status).toBe(200);
    for (const cookie of [alice.cookie, aliceLaptop]) {
      expect((await me(cookie)).status).toBe(401);
      expect((await callJson("/v1/api-keys", { body: { scope: "full" }, headers: dashboard(cookie) })).status).toBe(401);
    }
    expect((await me(bob.cookie)).status).toBe(200);
    // Signing in again, even within the same second, gives a working session.
    const again = `svc_session=${await signSession(env, { userId: alice.userId, tenantId: t.id })}`;
    expect((await me(again)).status).toBe(200);
  });

  it("sign out everywhere voids every session of every user of the tenant (session only)", async () => {
    const t = await seedTenant();
    const other = await seedTenant();
    const admin = await signIn(t.id);
    const colleague = await signIn(t.id);
    const outsider = await signIn(other.id);
    const path = "/v1/auth/logout-everywhere";
    expect((await callJson(path, { method: "POST", key: t.key })).status).toBe(403);
    expect((await callJson(path, { method: "POST" })).status).toBe(401);
    expect((await me(colleague.cookie)).status).toBe(200);

    const res = await call(path, { method: "POST", headers: dashboard(admin.cookie) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ signed_out: true, users: 2 });
    expect(setCookie(res, "svc_session")?.attributes).toMatch(/Max-Age=0/);
    expect((await me(admin.cookie)).status).toBe(401);
    expect((await me(colleague.cookie)).status).toBe(401);
    expect((await me(outsider.cookie)).status).toBe(200);
    expect((await callJson(`/v1/verifications`, { headers: { Cookie: colleague.cookie } })).status).toBe(401);
  });

  it("shows progress to session reads of a verification, never to API-key reads", async () => {
    const t = await seedTenant();
    const { cookie } = await signIn(t.id);
    const v = await createVerification(t.key);
    const progress = { schema_version: 1, kind: "step_reached", step: "capturing", elapsed_ms: 1200, step_index: 0 };
    const reported = await call(`/v1/verifications/${v.id}/progress`, { body: progress });
    await reported.text();
    expect(reported.status).toBe(204);

    const byKey = await callJson(`/v1/verifications/${v.id}`, { key: t.key });
    expect(byKey.status).toBe(200);
    expect(byKey.body).not.toHaveProperty("progress");
    const listedByKey = await callJson("/v1/verifications", { key: t.key });
    expect(listedByKey.body.items[0]).not.toHaveProperty("progress");

    const bySession = await callJson(`/v1/verifications/${v.id}`, { headers: { Cookie: cookie } });
    expect(bySession.status).toBe(200);
    expect(bySession.body.progress).toMatchObject({ kind: "step_reached", step: "capturing", elapsed_ms: 1200 });
    const listedBySession = await callJson("/v1/verifications", { headers: { Cookie: cookie } });
    expect(listedBySession.body.items[0].progress).toMatchObject({ step: "capturing" });

    // Another tenant's session sees nothing.
    const other = await seedTenant();
    const stranger = await signIn(other.id);
    expect((await callJson(`/v1/verifications/${v.id}`, { headers: { Cookie: stranger.cookie } })).status).toBe(404);
  });
});
