import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { certificateLinks } from "../../src/db/schema";
import { MAX_ACTIVE_LINKS } from "../../src/domain/certificates/links";
import { CERTIFICATE_LIMITS } from "../../src/domain/public-limits";
import { BASE, call, callJson, db, seedTenant, type TestTenant } from "../helpers/api";
import { certificateWithSequence, completedVerification, publishedJwks, verifyCertificate } from "../helpers/certificates";
import { sha256Hex } from "../helpers/images";
import { awayFromWindowEdge } from "../helpers/limits";
import { dashboard, signIn } from "../helpers/session";

/*
 * Certificate links: the certificate behind a credential of its own (POST …/certificate-link), the
 * public door GET /v1/certificates/{token} (JSON, or the page with Accept: text/html), revocation.
 */

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant("Linked Insurance");
});

const TOKEN_URL = new RegExp(`^${BASE.replace(/[.:/]/g, "\\$&")}/v1/certificates/(cert_[0-9A-Za-z]{43})$`);
const pathOf = (url: string) => new URL(url).pathname;
const asPage = { headers: { Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" } };

async function createLink(id: string, options: { key?: string; headers?: Record<string, string> } = { key: t.key }) {
  const res = await callJson(`/v1/verifications/${id}/certificate-link`, { method: "POST", ...options });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe("certificate links", () => {
  it("a link of its own: JSON for programs, a page for people; its token rests only hashed", async () => {
    const { v } = await completedVerification(t);
    const operator = await signIn(t.id);
    const link = await createLink(v.id, { headers: dashboard(operator.cookie) });
    expect(link).toMatchObject({ verification_id: v.id, created_by: operator.userId, created_at: expect.any(String) });
    expect(link.id).toMatch(/^certlink_[0-9A-Z]{26}$/);
    const token = TOKEN_URL.exec(link.url)?.[1];
    expect(token, link.url).toBeDefined();
    // The capture link's credential is not the way in: the URL does not carry the verification id.
    expect(link.url).not.toContain(v.id);

    const json = await callJson(pathOf(link.url));
    expect(json.status).toBe(200);
    expect(json.headers.get("Cache-Control")).toBe("no-store");
    expect(json.body).toEqual(link.certificate);
    expect((await verifyCertificate(json.body.certificate, await publishedJwks())).payload.verification).toMatchObject({ id: v.id });

    const page = await call(pathOf(link.url), asPage);
    expect(page.status).toBe(200);
    expect(page.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(page.headers.get("Content-Security-Policy")).toMatch(/default-src 'none'; script-src 'self'; style-src 'self'/);
    expect(page.headers.get("Referrer-Policy")).toBe("no-referrer");
    expect(page.headers.get("Vary")).toMatch(/Accept/);
    const html = await page.text();
    expect(html).toContain('<script type="application/json" id="certificate-data">');
    expect(html).toContain(json.body.certificate);
    expect(html).toContain('<script src="/assets/certificate-page.js" defer></script>');

    // At rest: the SHA-256 of the token, never the token.
    const rows = await db().select().from(certificateLinks).where(eq(certificateLinks.verificationId, v.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).toBe(await sha256Hex(new TextEncoder().encode(token!)));
    expect(JSON.stringify(rows)).not.toContain(token!.slice(5));
  });

  it("a full API key makes links too; each is a new token; the list shows them without URLs, newest first", async () => {
    const { v } = await completedVerification(t);
    const first = await createLink(v.id);
    const second = await createLink(v.id);
    expect(first.created_by).toMatch(/^key_/);
    expect(second.url).not.toBe(first.url);
    const list = await callJson(`/v1/verifications/${v.id}/certificate-links`, { key: t.key });
    expect(list.status).toBe(200);
    expect(list.body.items.map((l: any) => l.id)).toEqual([second.id, first.id]);
    for (const item of list.body.items) expect(Object.keys(item).sort()).toEqual(["created_at", "created_by", "id", "verification_id"]);
  });

  it("a link follows the certificate: after a review it shows the next one", async () => {
    const { v } = await completedVerification(t);
    const link = await createLink(v.id);
    expect(link.certificate.sequence).toBe(1);
    const operator = await signIn(t.id);
    expect((await callJson(`/v1/verifications/${v.id}/review`, { body: { decision: "approved", note: "ok" }, headers: dashboard(operator.cookie) })).status).toBe(200);
    const second = await certificateWithSequence(t, v.id, 2);
    expect((await callJson(pathOf(link.url))).body.certificate).toBe(second.certificate);
  });

  it("a link shows the tenant as it is now: a renamed tenant is signed anew on the link's own read", async () => {
    const renamed = await seedTenant("Before Rename");
    const { v } = await completedVerification(renamed);
    const link = await createLink(v.id, { key: renamed.key });
    expect(link.certificate.sequence).toBe(1);
    const owner = await signIn(renamed.id);
    const patched = await callJson("/v1/tenant/settings", { method: "PATCH", body: { display_name: "After Rename" }, headers: dashboard(owner.cookie) });
    expect(patched.status).toBe(200);
    // No API read of the certificate in between: the link is the only door that serves it.
    const served = await callJson(pathOf(link.url));
    expect(served.status).toBe(200);
    expect(served.body).toMatchObject({ sequence: 2, payload: { verification: { tenant: { display_name: "After Rename" } } } });
    expect((await callJson(pathOf(link.url))).body.sequence).toBe(2);
  });

  it("revoked and unknown links are 404, as JSON and as a page; revoking again is harmless", async () => {
    const { v } = await completedVerification(t);
    const link = await createLink(v.id);
    const keep = await createLink(v.id);
    const revoked = await callJson(`/v1/certificate-links/${link.id}`, { key: t.key, method: "DELETE" });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: link.id, revoked_at: expect.any(String) });

    const json = await callJson(pathOf(link.url));
    expect(json.status).toBe(404);
    expect(json.body.error.code).toBe("not_found");
    const page = await call(pathOf(link.url), asPage);
    expect(page.status).toBe(404);
    expect(page.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(await page.text()).toContain("Certificate not found");
    // The other link is untouched.
    expect((await callJson(pathOf(keep.url))).status).toBe(200);

    const again = await callJson(`/v1/certificate-links/${link.id}`, { key: t.key, method: "DELETE" });
    expect(again.status).toBe(200);
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
    const list = await callJson(`/v1/verifications/${v.id}/certificate-links`, { key: t.key });
    expect(list.body.items.find((l: any) => l.id === link.id).revoked_at).toBe(revoked.body.revoked_at);

    // Longer than any token (a link padded by a mail client) included: JSON for programs, the page for people.
    for (const unknown of [`cert_${"A".repeat(43)}`, "cert_short", v.id, "anything", `cert_${"a".repeat(96)}`]) {
      const json = await callJson(`/v1/certificates/${unknown}`);
      expect(json.status, unknown).toBe(404);
      expect(json.body.error.code).toBe("not_found");
      const unknownPage = await call(`/v1/certificates/${unknown}`, asPage);
      expect(unknownPage.status).toBe(404);
      expect(unknownPage.headers.get("Content-Type"), unknown).toMatch(/^text\/html/);
      expect(await unknownPage.text()).toContain("Certificate not found");
    }
  });

  it("only the owning tenant lists and revokes; a publishable key and no credential are refused", async () => {
    const { v } = await completedVerification(t);
    const link = await createLink(v.id);
    const other = await seedTenant("Other");
    expect((await callJson(`/v1/certificate-links/${link.id}`, { key: other.key, method: "DELETE" })).status).toBe(404);
    expect((await callJson(`/v1/verifications/${v.id}/certificate-links`, { key: other.key })).status).toBe(404);
    expect((await callJson(`/v1/certificate-links/${link.id}`, { key: t.publishableKey, method: "DELETE" })).status).toBe(403);
    expect((await callJson(`/v1/certificate-links/${link.id}`, { method: "DELETE" })).status).toBe(401);
    expect((await callJson(`/v1/certificate-links/certlink_nope`, { key: t.key, method: "DELETE" })).status).toBe(404);
    expect((await callJson(pathOf(link.url))).status).toBe(200);
  });

  it(`at most ${MAX_ACTIVE_LINKS} active links per verification; revoking one makes room`, async () => {
    const { v } = await completedVerification(t);
    const made = [];
    for (let i = 0; i < MAX_ACTIVE_LINKS; i += 1) made.push(await createLink(v.id));
    const refused = await callJson(`/v1/verifications/${v.id}/certificate-link`, { key: t.key, method: "POST" });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("invalid_state");
    expect((await callJson(`/v1/certificate-links/${made[0].id}`, { key: t.key, method: "DELETE" })).status).toBe(200);
    await createLink(v.id);
  });

  it("GET /v1/certificates/{token}: 60 per minute per client, then 429 with Retry-After (JSON and page), guesses included", async () => {
    const rule = CERTIFICATE_LIMITS.certificateRead;
    await awayFromWindowEdge(rule.periodSeconds * 1000);
    const { v } = await completedVerification(t);
    const link = await createLink(v.id);
    const client = "198.51.100.77";
    for (let i = 0; i < rule.limit - 1; i += 1) expect((await env[rule.binding].limit({ key: client })).success).toBe(true);
    expect((await callJson(pathOf(link.url), { headers: { "CF-Connecting-IP": client } })).status).toBe(200);
    const limited = await callJson(`/v1/certificates/cert_${"B".repeat(43)}`, { headers: { "CF-Connecting-IP": client } });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: { code: "too_many_requests", message: rule.message } });
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
    const page = await call(pathOf(link.url), { headers: { ...asPage.headers, "CF-Connecting-IP": client } });
    expect(page.status).toBe(429);
    expect(page.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(page.headers.get("Retry-After")).toBe(String(rule.periodSeconds));
    await page.text();
    expect((await callJson(pathOf(link.url), { headers: { "CF-Connecting-IP": "198.51.100.78" } })).status).toBe(200);
  });
});
