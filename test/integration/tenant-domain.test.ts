import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { auditLog, tenants } from "../../src/db/schema";
import { DOMAIN_LIMITS, DOMAIN_RECHECK_GRACE_MS, DOMAIN_RECHECK_INTERVAL_MS, recheckDomains } from "../../src/domain/tenants/domains";
import { limitKey } from "../../src/domain/public-limits";
import { MINUTELY_CRON } from "../../src/scheduled";
import { callJson, db, seedTenant, type TestTenant } from "../helpers/api";
import { certificateWithSequence, completedVerification } from "../helpers/certificates";
import { breakResolver, freshDomain, publishTxt, unpublish } from "../helpers/dns";
import { endWindow } from "../helpers/limits";
import { dashboard, signIn } from "../helpers/session";

/*
 * A tenant proves a domain with a DNS TXT record (issue 33): certificates then name it by that domain
 * instead of the display name it typed. Checked through DNS over HTTPS (the loopback resolver,
 * test/fakes/doh.ts), re-checked by the minutely cron and dropped when the record is gone. Every
 * failing check fails closed.
 */

async function admin(t: TestTenant) {
  const { cookie, userId, email } = await signIn(t.id, "admin");
  const as = (path: string, init: { method?: string; body?: unknown } = {}) => callJson(path, { ...init, headers: dashboard(cookie) });
  return { cookie, userId, email, as };
}

async function claimed(t: TestTenant, domain: string) {
  const a = await admin(t);
  const res = await a.as("/v1/tenant/domain/claim", { body: { domain } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { ...a, record: res.body.claim.record as { name: string; type: "TXT"; value: string } };
}

/** A tenant whose domain is verified (published and checked). */
async function verified(t: TestTenant, domain = freshDomain()) {
  const c = await claimed(t, domain);
  await publishTxt(c.record.name, [c.record.value]);
  const res = await c.as("/v1/tenant/domain/check", { method: "POST" });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { ...c, domain };
}

const entries = async (tenantId: string, action: string) =>
  (await db().select().from(auditLog).where(eq(auditLog.tenantId, tenantId))).filter((e) => e.action === action);

describe("a tenant's domain, proved by a DNS TXT record", () => {
  it("claim: the record to publish, with a fresh token each time; check: refused until it is published, then the domain is verified and certificates name it", async () => {
    const t = await seedTenant("Allianz SE");
    const { as, userId } = await admin(t);
    const domain = freshDomain("allianz");
    expect((await as("/v1/tenant/domain")).body).toEqual({});

    const first = await as("/v1/tenant/domain/claim", { body: { domain: ` ${domain.toUpperCase()}. ` } });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      claim: {
        domain,
        record: { name: `_verification-service.${domain}`, type: "TXT", value: expect.stringMatching(/^verification-service-domain=[0-9A-Za-z]{43}$/) },
        created_at: expect.any(String),
        expires_at: expect.any(String),
      },
    });
    // A second claim replaces the first, with a new token (the old value proves nothing any more).
    const second = await as("/v1/tenant/domain/claim", { body: { domain } });
    const { record } = second.body.claim;
    expect(record.value).not.toBe(first.body.claim.record.value);
    expect((await as("/v1/tenant/domain")).body).toEqual(second.body);

    // Not published yet: 409, nothing verified.
    const early = await as("/v1/tenant/domain/check", { method: "POST" });
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ code: "invalid_state", message: expect.stringContaining(record.name) });
    // The first claim's value, or another tenant's, is not the record.
    await publishTxt(record.name, [first.body.claim.record.value, "v=spf1 -all"]);
    expect((await as("/v1/tenant/domain/check", { method: "POST" })).status).toBe(409);

    await publishTxt(record.name, ["v=spf1 -all", record.value]);
    const checked = await as("/v1/tenant/domain/check", { method: "POST" });
    expect(checked.status).toBe(200);
    expect(checked.body).toEqual({ verified_domain: { domain, verified_at: expect.any(String), confirmed_at: expect.any(String) } });
    expect((await as("/v1/tenant/domain")).body).toEqual(checked.body);
    expect(await entries(t.id, "domain.claimed")).toHaveLength(2);
    expect(await entries(t.id, "domain.verified")).toMatchObject([{ actorType: "user", actorId: userId, targetType: "tenant", targetId: t.id, targetLabel: domain, details: { domain } }]);

    // Certificates now name the domain, beside the declared name.
    const { v } = await completedVerification(t);
    const cert = await certificateWithSequence(t, v.id, 1);
    expect(cert.payload.verification.tenant).toEqual({ id: t.id, display_name: expect.stringMatching(/^Allianz SE/), verified_domain: domain });
    // Checking again with nothing claimed is a 409 that changes nothing.
    const nothing = await as("/v1/tenant/domain/check", { method: "POST" });
    expect(nothing.status).toBe(409);
    expect((await as("/v1/tenant/domain")).body).toEqual(checked.body);
  });

  it("fails closed: a resolver failure verifies nothing (503 with Retry-After), and an expired claim is gone", async () => {
    const t = await seedTenant();
    const c = await claimed(t, freshDomain());
    await breakResolver(c.record.name);
    const down = await c.as("/v1/tenant/domain/check", { method: "POST" });
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe("storage_unavailable");
    expect(Number(down.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await c.as("/v1/tenant/domain")).body.verified_domain).toBeUndefined();

    await publishTxt(c.record.name, [c.record.value]);
    // Seven days pass (the claim's own clock).
    await db().run(`UPDATE domain_claims SET expires_at = ${Date.now() - 1} WHERE tenant_id = '${t.id}'`);
    const late = await c.as("/v1/tenant/domain/check", { method: "POST" });
    expect(late.status).toBe(409);
    expect(late.body.error.message).toMatch(/expired/);
    expect((await c.as("/v1/tenant/domain")).body).toEqual({});
  });

  it("refuses what is not a public domain name; viewers read, only admins claim, check or remove", async () => {
    const t = await seedTenant();
    const { as } = await admin(t);
    for (const domain of ["localhost", "printer.local", "intranet", "10.0.0.1", "-bad.example", "a..example", "exa mple.com", "under_score.example", `${"a".repeat(64)}.example`, "example.123", ""]) {
      const res = await as("/v1/tenant/domain/claim", { body: { domain } });
      expect(res.status, domain).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
      expect(Object.keys(res.body.error.fields)).toEqual(["domain"]);
    }
    expect((await as("/v1/tenant/domain/claim", { body: { domain: "xn--bcher-kva.example" } })).status).toBe(201);
    const viewer = await signIn(t.id, "viewer");
    expect((await callJson("/v1/tenant/domain", { headers: dashboard(viewer.cookie) })).status).toBe(200);
    for (const [path, method] of [["/v1/tenant/domain/claim", "POST"], ["/v1/tenant/domain/check", "POST"], ["/v1/tenant/domain", "DELETE"]] as const) {
      const res = await callJson(path, { method, headers: dashboard(viewer.cookie), ...(path.endsWith("claim") ? { body: { domain: freshDomain() } } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    // An API key is no session: settings are the console's.
    expect((await callJson("/v1/tenant/domain", { key: t.key })).status).toBe(403);
  });

  it("an admin removes the domain: certificates signed from then on name only the declared name", async () => {
    const t = await seedTenant();
    const { as, domain } = await verified(t);
    const removed = await as("/v1/tenant/domain", { method: "DELETE" });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({});
    expect(await entries(t.id, "domain.removed")).toMatchObject([{ targetLabel: domain, details: { domain } }]);
    // Removing nothing records nothing.
    expect((await as("/v1/tenant/domain", { method: "DELETE" })).status).toBe(200);
    expect(await entries(t.id, "domain.removed")).toHaveLength(1);
    const { v } = await completedVerification(t);
    expect((await certificateWithSequence(t, v.id, 1)).payload.verification.tenant).toEqual({ id: t.id, display_name: expect.any(String) });
  });

  it("a certificate stops naming the domain as soon as the proof lapses: the next one served, even of an unchanged verification, is signed without it", async () => {
    const t = await seedTenant();
    const { as, domain } = await verified(t);
    const { v } = await completedVerification(t);
    const first = await certificateWithSequence(t, v.id, 1);
    expect(first.payload.verification.tenant.verified_domain).toBe(domain);
    // Removed by an admin: the verification has not changed, its certificate must.
    expect((await as("/v1/tenant/domain", { method: "DELETE" })).status).toBe(200);
    const read = await callJson(`/v1/verifications/${v.id}/certificate`, { key: t.key });
    expect(read.status).toBe(200);
    expect(read.body.sequence).toBe(2);
    expect(read.body.payload.verification.tenant).toEqual({ id: t.id, display_name: expect.any(String) });
    // Served again: the same certificate, not a new one per read.
    expect((await callJson(`/v1/verifications/${v.id}/certificate`, { key: t.key })).body.sequence).toBe(2);

    // Proved again, then dropped by the re-check (record gone): the same, at the next serve.
    const again = await as("/v1/tenant/domain/claim", { body: { domain } });
    await publishTxt(again.body.claim.record.name, [again.body.claim.record.value]);
    expect((await as("/v1/tenant/domain/check", { method: "POST" })).status).toBe(200);
    expect((await certificateWithSequence(t, v.id, 3)).payload.verification.tenant.verified_domain).toBe(domain);
    await unpublish(again.body.claim.record.name);
    const due = Date.now() + DOMAIN_RECHECK_INTERVAL_MS + 60_000;
    await recheckDomains(env, db(), due);
    expect((await db().select().from(tenants).where(eq(tenants.id, t.id)).get())!.verifiedDomain).toBeNull();
    const after = await callJson(`/v1/verifications/${v.id}/certificate`, { key: t.key });
    expect(after.body.sequence).toBe(4);
    expect(after.body.payload.verification.tenant.verified_domain).toBeUndefined();
  });

  it("claims and checks are rationed per tenant (each check asks the resolver)", async () => {
    const t = await seedTenant();
    const { as } = await admin(t);
    try {
      for (let i = 0; i < DOMAIN_LIMITS.claims.limit; i += 1) expect((await as("/v1/tenant/domain/claim", { body: { domain: freshDomain() } })).status).toBe(201);
      const limited = await as("/v1/tenant/domain/claim", { body: { domain: freshDomain() } });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
      for (let i = 0; i < DOMAIN_LIMITS.checks.limit; i += 1) expect((await as("/v1/tenant/domain/check", { method: "POST" })).status).toBe(409);
      expect((await as("/v1/tenant/domain/check", { method: "POST" })).status).toBe(429);
    } finally {
      await endWindow(limitKey(DOMAIN_LIMITS.claims, t.id));
      await endWindow(limitKey(DOMAIN_LIMITS.checks, t.id));
    }
  });
});

describe("the periodic re-check (minutely cron)", () => {
  it("keeps a domain whose record is still there, and drops one whose record is gone, recording that the service did", async () => {
    const kept = await seedTenant();
    const lost = await seedTenant();
    const k = await verified(kept);
    const l = await verified(lost);
    await unpublish(l.record.name);
    const due = Date.now() + DOMAIN_RECHECK_INTERVAL_MS + 60_000;
    // Through the cron itself: the Worker's scheduled handler on the minutely schedule.
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: due, cron: MINUTELY_CRON }), env, ctx);
    await waitOnExecutionContext(ctx);

    const keptRow = await db().select().from(tenants).where(eq(tenants.id, kept.id)).get();
    expect(keptRow).toMatchObject({ verifiedDomain: k.domain, verifiedDomainConfirmedAt: due, verifiedDomainCheckedAt: due });
    const lostRow = await db().select().from(tenants).where(eq(tenants.id, lost.id)).get();
    expect(lostRow).toMatchObject({ verifiedDomain: null, verifiedDomainToken: null, verifiedDomainAt: null });
    expect(await entries(lost.id, "domain.dropped")).toMatchObject([
      { actorType: "service", actorId: "domain_recheck", targetType: "tenant", targetId: lost.id, targetLabel: l.domain, details: { domain: l.domain, reason: "record_missing" } },
    ]);
    expect((await l.as("/v1/tenant/domain")).body).toEqual({});
    const { v } = await completedVerification(lost);
    expect((await certificateWithSequence(lost, v.id, 1)).payload.verification.tenant.verified_domain).toBeUndefined();
    // Not due again until the interval passes: nothing is asked of the resolver in between.
    expect(await recheckDomains(env, db(), due + 60_000)).toMatchObject({ confirmed: 0, dropped: 0, unresolved: 0 });
  });

  it("a resolver that keeps failing keeps the domain through the grace period, then drops it (fail closed)", async () => {
    const t = await seedTenant();
    const d = await verified(t);
    await breakResolver(d.record.name);
    const row = async () => (await db().select().from(tenants).where(eq(tenants.id, t.id)).get())!;
    const confirmedAt = (await row()).verifiedDomainConfirmedAt!;
    const soon = confirmedAt + DOMAIN_RECHECK_INTERVAL_MS + 1;
    expect(await recheckDomains(env, db(), soon)).toMatchObject({ unresolved: 1, dropped: 0 });
    expect(await row()).toMatchObject({ verifiedDomain: d.domain, verifiedDomainConfirmedAt: confirmedAt, verifiedDomainCheckedAt: soon });
    const late = confirmedAt + DOMAIN_RECHECK_GRACE_MS + 1;
    expect(await recheckDomains(env, db(), late)).toMatchObject({ dropped: 1 });
    expect(await row()).toMatchObject({ verifiedDomain: null });
    expect(await entries(t.id, "domain.dropped")).toMatchObject([{ details: { domain: d.domain, reason: "unconfirmed" } }]);
  });
});
