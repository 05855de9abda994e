import { describe, expect, it } from "vitest";
import { callJson, seedTenant } from "../helpers/api";
import { dashboard, signIn } from "../helpers/session";

describe("API keys (dashboard session)", () => {
  it("mints a key whose plaintext is shown once, lists keys without it, and revokes", async () => {
    const t = await seedTenant();
    const { cookie } = await signIn(t.id);
    const minted = await callJson("/v1/api-keys", { body: { scope: "full", name: "Back-end" }, headers: dashboard(cookie) });
    expect(minted.status).toBe(201);
    expect(minted.body.key).toMatch(/^pk_test_[0-9A-Za-z]{43}$/);
    expect(minted.body).toMatchObject({ scope: "full", name: "Back-end", environment: "test" });
    expect(minted.body.id).toMatch(/^key_/);
    expect(minted.body.key.startsWith(minted.body.prefix.replace("…", ""))).toBe(true);
    expect(minted.headers.get("Cache-Control")).toBe("no-store");

    const works = await callJson("/v1/verifications", { key: minted.body.key });
    expect(works.status).toBe(200);

    const listed = await callJson("/v1/api-keys", { headers: { Cookie: cookie } });
    expect(listed.status).toBe(200);
    const mine = listed.body.items.find((k: any) => k.id === minted.body.id);
    expect(mine).toMatchObject({ scope: "full", prefix: minted.body.prefix });
    expect(JSON.stringify(listed.body)).not.toContain(minted.body.key);
    expect(listed.body.items.map((k: any) => k.id)).toEqual([...listed.body.items.map((k: any) => k.id)].sort().reverse());

    const revoked = await callJson(`/v1/api-keys/${minted.body.id}`, { method: "DELETE", headers: dashboard(cookie) });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toBeDefined();
    expect((await callJson("/v1/verifications", { key: minted.body.key })).status).toBe(401);
    const again = await callJson(`/v1/api-keys/${minted.body.id}`, { method: "DELETE", headers: dashboard(cookie) });
    expect(again.status).toBe(200);
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
  });

  it("mints publishable keys that may only create verifications", async () => {
    const t = await seedTenant();
    const { cookie } = await signIn(t.id);
    const minted = await callJson("/v1/api-keys", { body: { scope: "publishable" }, headers: dashboard(cookie) });
    expect(minted.status).toBe(201);
    expect((await callJson("/v1/verifications", { key: minted.body.key, body: { max_captures: 1 } })).status).toBe(201);
    expect((await callJson("/v1/verifications", { key: minted.body.key })).status).toBe(403);
  });

  // Probe of 2026-12-04: a 401 on a key route carried no challenge (RFC 6750 §3).
  it("a 401 where an API key is taken carries the Bearer challenge, naming invalid_token when a key was sent", async () => {
    const none = await callJson("/v1/verifications");
    expect(none.status).toBe(401);
    expect(none.headers.get("WWW-Authenticate")).toBe('Bearer realm="api"');
    for (const key of ["sk_test_nope", "not a key at all"]) {
      const wrong = await callJson("/v1/verifications", { key });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get("WWW-Authenticate")).toBe('Bearer realm="api", error="invalid_token"');
    }
  });

  it("is session only and tenant scoped; bad input is a 400", async () => {
    const a = await seedTenant();
    const b = await seedTenant();
    const sa = await signIn(a.id);
    const sb = await signIn(b.id);
    // A valid key is authenticated but may not use a session-only route.
    expect((await callJson("/v1/api-keys", { key: a.key })).status).toBe(403);
    expect((await callJson("/v1/api-keys", { key: a.key, body: { scope: "full" } })).status).toBe(403);
    const minted = await callJson("/v1/api-keys", { body: { scope: "full" }, headers: dashboard(sa.cookie) });
    expect((await callJson(`/v1/api-keys/${minted.body.id}`, { method: "DELETE", headers: dashboard(sb.cookie) })).status).toBe(404);
    expect((await callJson("/v1/verifications", { key: minted.body.key })).status).toBe(200);
    const listedByB = await callJson("/v1/api-keys", { headers: { Cookie: sb.cookie } });
    expect(listedByB.body.items.some((k: any) => k.id === minted.body.id)).toBe(false);
    expect((await callJson("/v1/api-keys/key_nope", { method: "DELETE", headers: dashboard(sa.cookie) })).status).toBe(404);
    const bad = await callJson("/v1/api-keys", { body: { scope: "admin" }, headers: dashboard(sa.cookie) });
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields).toHaveProperty("scope");
    const missing = await callJson("/v1/api-keys", { body: {}, headers: dashboard(sa.cookie) });
    expect(missing.status).toBe(400);
    // A browser behind HTTP basic authentication (a staging console) sends `Authorization: Basic` with
    // every request: beside the cookie, the session still counts; alone, it is no credential of ours.
    const basic = { Authorization: `Basic ${btoa("staging:secret")}` };
    expect((await callJson("/v1/api-keys", { headers: { Cookie: sa.cookie, ...basic } })).status).toBe(200);
    expect((await callJson("/v1/api-keys", { body: { scope: "full" }, headers: dashboard(sa.cookie, basic) })).status).toBe(201);
    const alone = await callJson("/v1/api-keys", { headers: basic });
    expect(alone.status).toBe(401);
    expect(alone.body.error.message).toBe("Authentication required.");
    // A session-only route names no scheme a client could answer.
    expect(alone.headers.get("WWW-Authenticate")).toBeNull();
    // A key's name is the actor the audit log prints: one line.
    const twoLines = await callJson("/v1/api-keys", { body: { scope: "full", name: "Back-end\nforged entry" }, headers: dashboard(sa.cookie) });
    expect(twoLines.status).toBe(400);
    expect(twoLines.body.error.fields.name).toMatch(/^Must be one line of text/);
    // Probe of 2026-12-06: an override reordered the actor the audit log prints, and a name of a Hangul filler printed as nothing.
    for (const [name, message] of [["Back\u202Eend", /^Must not hold bidirectional controls/], ["\u3164", /^Must show something/], ["\u2800", /^Must show something/]] as const) {
      const res = await callJson("/v1/api-keys", { body: { scope: "full", name }, headers: dashboard(sa.cookie) });
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect(res.body.error.fields.name).toMatch(message);
    }
  });
});
