import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { TEST_EVENT_LIMIT } from "../../src/domain/webhooks/test-event";
import { findTenant } from "../../src/domain/tenants/tenants";
import { call, callJson, createVerification, db, seedTenant, type TestTenant } from "../helpers/api";
import { nextSignInLink } from "../helpers/sign-in-mail";
import { captureInline } from "../helpers/capture";
import { uniqueJpeg } from "../helpers/images";
import { callConfigured } from "../helpers/configured";
import { endWindow } from "../helpers/limits";
import { dashboard, signIn } from "../helpers/session";
import { waitFor } from "../helpers/wait";
import { received, receiver } from "../helpers/webhooks";
import { testClientKey } from "../helpers/client-address";
import { magicLinkLimitKey, signInAddressLimitKeys } from "../../src/domain/accounts/magic-links";
import { signInIdentity } from "../../src/domain/accounts/users";
import { presentVerdict } from "../../src/model/verification/present";

/*
 * What the operator console needs from the public API (issue 12): list filters by verdict label,
 * template and search, recent deliveries across verifications, the test event, the sign-in
 * providers, magic links that come back to the console, and the console's own shell.
 */

/** Gives a verification a verdict label as the analysis would (a version bump, as the CAS trigger requires). */
async function setVerdict(id: string, label: "verified" | "suspicious" | "failed", assessment: "complete" | "partial" | "none" = "complete"): Promise<void> {
  await storeVerdict(id, { label, score: 0.5, signals: {}, assessment, not_assessed: [], ...(label === "verified" ? {} : { reason_code: "screen_detected" }) });
}

/** Writes a verdict as stored, whatever its shape (a version bump, as the CAS trigger requires). */
async function storeVerdict(id: string, verdict: object): Promise<void> {
  await env.DB.prepare("UPDATE verifications SET version = version + 1, verdict = ?1 WHERE id = ?2").bind(JSON.stringify(verdict), id).run();
}

async function listIds(t: TestTenant, query: string): Promise<string[]> {
  const res = await callJson(`/v1/verifications?${query}`, { key: t.key });
  expect(res.status, query).toBe(200);
  return res.body.items.map((v: { id: string }) => v.id);
}

async function queryPlan(sqlText: string, ...params: unknown[]): Promise<string> {
  const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sqlText}`).bind(...params).all<{ detail: string }>();
  return results.map((r) => r.detail).join("\n");
}

describe("verification list filters", () => {
  it("filters by verdict label and by template, newest first, across keyset pages", async () => {
    const t = await seedTenant();
    const made: string[] = [];
    for (const label of ["verified", "suspicious", "verified", "failed", "verified"] as const) {
      const v = await createVerification(t.key, { max_captures: 1 });
      await setVerdict(v.id, label);
      made.push(v.id);
    }
    await createVerification(t.key, { max_captures: 1 }); // no verdict yet
    const verified = [made[4], made[2], made[0]];
    expect(await listIds(t, "verdict=verified")).toEqual(verified);
    expect(await listIds(t, "verdict=failed")).toEqual([made[3]]);

    const first = await callJson("/v1/verifications?verdict=verified&limit=2", { key: t.key });
    expect(first.body.items.map((v: { id: string }) => v.id)).toEqual(verified.slice(0, 2));
    const second = await callJson(`/v1/verifications?verdict=verified&limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, { key: t.key });
    expect(second.body.items.map((v: { id: string }) => v.id)).toEqual(verified.slice(2));
    expect(second.body.next_cursor).toBeUndefined();

    // Started from a template: the verification says which one and which version, and the filter finds it.
    const { cookie } = await signIn(t.id);
    const published = await callJson("/v1/link-templates", { body: { slug: "roof", name: "Roof", max_captures: 1 }, headers: dashboard(cookie) });
    expect(published.status).toBe(201);
    const start = await call(`/l/${t.slug}/roof`, { redirect: "manual" });
    expect(start.status).toBe(303);
    await start.text();
    const fromTemplate = await listIds(t, `template_id=${published.body.id}`);
    expect(fromTemplate).toHaveLength(1);
    const read = await callJson(`/v1/verifications/${fromTemplate[0]}`, { key: t.key });
    expect(read.body.template).toEqual({ id: published.body.id, version: 1 });
    expect((await callJson(`/v1/verifications/${made[0]}`, { key: t.key })).body.template).toBeUndefined();
    expect(await listIds(t, "template_id=tpl_01JD2Y4N9M6Q8R0S2T4V6W8X0Z")).toEqual([]);

    const bad = await callJson("/v1/verifications?verdict=maybe&template_id=roof", { key: t.key });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.error.fields).sort()).toEqual(["template_id", "verdict"]);
  });

  it("searches by verification id, capture id and the start of a metadata value (case-insensitive), within the tenant only", async () => {
    const t = await seedTenant();
    const other = await seedTenant();
    const claim = await createVerification(t.key, { max_captures: 1, metadata: { claim_id: "CLM-20931", region: "North" } });
    const claim2 = await createVerification(t.key, { max_captures: 1, metadata: { claim_id: "CLM-20944" } });
    await createVerification(t.key, { max_captures: 1, metadata: { claim_id: "POL-1" } });
    await createVerification(other.key, { max_captures: 1, metadata: { claim_id: "CLM-20931" } });

    expect(await listIds(t, "q=CLM-20931")).toEqual([claim.id]);
    expect(await listIds(t, "q=clm-209")).toEqual([claim2.id, claim.id]);
    expect(await listIds(t, "q=north")).toEqual([claim.id]);
    expect(await listIds(t, "q=CLM-2094&limit=1")).toEqual([claim2.id]);
    expect(await listIds(t, "q=nothing-like-it")).toEqual([]);
    expect(await listIds(t, `q=${claim.id}`)).toEqual([claim.id]);
    expect(await listIds(other, `q=${claim.id}`)).toEqual([]);

    // A capture id finds its verification (max_captures 2 keeps it open for the analysis).
    const withPhoto = await createVerification(t.key, { max_captures: 2, metadata: { claim_id: "CLM-30000" } });
    const captured = await captureInline(withPhoto.id, uniqueJpeg());
    const captureId = captured.captures[0].id as string;
    expect(await listIds(t, `q=${captureId}`)).toEqual([withPhoto.id]);
    expect(await listIds(other, `q=${captureId}`)).toEqual([]);
    // Combined with another filter.
    await setVerdict(claim2.id, "suspicious");
    expect(await listIds(t, "q=clm&verdict=suspicious")).toEqual([claim2.id]);
  });

  // Probe of 2026-12-04: a note took NUL and escape sequences, and a note of one space, where a narrative refuses them.
  it("a review note is text: control characters other than lines and tabs, and a blank note, are 400", async () => {
    const t = await seedTenant();
    const { cookie } = await signIn(t.id);
    const v = await createVerification(t.key, { max_captures: 1 });
    const review = (note: string) => callJson(`/v1/verifications/${v.id}/review`, { body: { decision: "rejected", note }, headers: dashboard(cookie) });
    for (const note of ["ok\u0000", "\u001b[2Jok", "a\u2028b"]) {
      const res = await review(note);
      expect(res.status, JSON.stringify(note)).toBe(400);
      expect(res.body.error.fields.note).toMatch(/control characters/);
    }
    const blank = await review(" \n ");
    expect(blank.status).toBe(400);
    expect(blank.body.error.fields.note).toMatch(/^Must say something/);
    expect((await review("Plate matches.\n\tChecked twice.")).status).toBe(200);
  });

  // A verified label that evaluated nothing was listed under "Verified" with the checked ones (probe of 2026-12-05).
  it("filters by whether the verdict evaluated anything: a verified label that evaluated nothing is told apart from a checked one", async () => {
    const t = await seedTenant();
    const checked = await createVerification(t.key, { max_captures: 1 });
    const unchecked = await createVerification(t.key, { max_captures: 1 });
    const partial = await createVerification(t.key, { max_captures: 1 });
    await setVerdict(checked.id, "verified");
    await setVerdict(unchecked.id, "verified", "none");
    await setVerdict(partial.id, "suspicious", "partial");
    expect(await listIds(t, "verdict=verified")).toEqual([unchecked.id, checked.id]);
    expect(await listIds(t, "verdict=verified&assessed=true")).toEqual([checked.id]);
    expect(await listIds(t, "assessed=false")).toEqual([unchecked.id]);
    expect(await listIds(t, "assessed=true")).toEqual([partial.id, checked.id]);
    expect(await listIds(t, "verdict=suspicious&assessed=false")).toEqual([]);
    await createVerification(t.key, { max_captures: 1 }); // no verdict: matches neither
    expect(await listIds(t, "assessed=false")).toEqual([unchecked.id]);
    const bad = await callJson("/v1/verifications?assessed=some", { key: t.key });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.error.fields)).toEqual(["assessed"]);
  });

  it("migration 0017 writes down each stored verdict's assessment as it is served", async () => {
    const t = await seedTenant();
    const notApplicable = { status: "not_applicable", reason: "uploaded_content" };
    const legacy = {
      // Stored before `assessment` existed.
      bare: { label: "verified", score: 0.8, signals: { screen_detection: { screen_detected: false, confidence: 0.9 }, depth: notApplicable } },
      // Stored as `complete` before `none` existed, though nothing was evaluated.
      nothing: { label: "verified", score: 0, signals: { screen_detection: notApplicable, depth: notApplicable }, assessment: "complete" },
      empty: { label: "verified", score: 0, signals: {} },
      someMissing: { label: "suspicious", score: 0, signals: { screen_detection: { screen_detected: false, confidence: 0.9 }, depth: { status: "not_assessed", reason: "no_capture_integrity" } } },
      allMissing: { label: "suspicious", score: 0, signals: { depth: { status: "not_assessed", reason: "no_capture_integrity" } }, assessment: "none" },
    };
    const ids: Record<string, string> = {};
    for (const [name, verdict] of Object.entries(legacy)) {
      ids[name] = (await createVerification(t.key, { max_captures: 1 })).id;
      await storeVerdict(ids[name]!, verdict);
    }
    const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith("0017_"))!;
    const backfill = migration.queries.find((q) => q.includes("UPDATE"))!;
    // Run again on this tenant's rows only (the suite's other verifications are left alone).
    const scoped = backfill.replace("WHERE `verdict` IS NOT NULL", "WHERE `tenant_id` = ?1 AND `verdict` IS NOT NULL");
    expect(scoped).not.toBe(backfill);
    await env.DB.prepare(scoped).bind(t.id).run();
    for (const [name, verdict] of Object.entries(legacy)) {
      const row = await env.DB.prepare("SELECT verdict FROM verifications WHERE id = ?1").bind(ids[name]).first<{ verdict: string }>();
      const stored = JSON.parse(row!.verdict) as { assessment: string };
      expect(stored.assessment, name).toBe((presentVerdict(verdict) as { assessment: string }).assessment);
    }
    expect(await listIds(t, "assessed=false")).toEqual([ids.allMissing, ids.empty, ids.nothing]);
    expect(await listIds(t, "assessed=true")).toEqual([ids.someMissing, ids.bare]);
    expect(await listIds(t, "verdict=verified&assessed=true")).toEqual([ids.bare]);
  });

  it("filters by whether an operator reviewed it", async () => {
    const t = await seedTenant();
    const { cookie } = await signIn(t.id);
    const reviewed = await createVerification(t.key, { max_captures: 1 });
    const open = await createVerification(t.key, { max_captures: 1 });
    const review = await callJson(`/v1/verifications/${reviewed.id}/review`, { body: { decision: "needs_more", note: "Asked by phone." }, headers: dashboard(cookie) });
    expect(review.status).toBe(200);
    expect(await listIds(t, "has_review=true")).toEqual([reviewed.id]);
    expect(await listIds(t, "has_review=false")).toEqual([open.id]);
    expect((await callJson("/v1/verifications?has_review=yes", { key: t.key })).status).toBe(400);
    const plan = await queryPlan("SELECT id FROM verifications WHERE tenant_id = ?1 AND review IS NOT NULL ORDER BY id DESC LIMIT 21", t.id);
    expect(plan).toContain("verifications_tenant_reviewed_idx");
    expect(plan).not.toContain("USE TEMP B-TREE");
  });

  it("redaction empties a verification's search terms (the trigger follows the config)", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, { max_captures: 1, metadata: { claim_id: "CLM-REDACT-1" } });
    expect(await listIds(t, "q=CLM-REDACT")).toEqual([v.id]);
    expect((await callJson(`/v1/verifications/${v.id}/redact`, { method: "POST", key: t.key })).status).toBe(200);
    expect(await listIds(t, "q=CLM-REDACT")).toEqual([]);
    const { results } = await env.DB.prepare("SELECT count(*) AS n FROM verification_search_terms WHERE verification_id = ?1").bind(v.id).all<{ n: number }>();
    expect(results[0]!.n).toBe(0);
  });

  it("each filter reads through an index that ends in the keyset column", async () => {
    const tenant = "tnt_01JD2Y4N9M6Q8R0S2T4V6W8X0Z";
    const verdictPlan = await queryPlan(
      "SELECT id FROM verifications WHERE tenant_id = ?1 AND (verdict ->> '$.label') = ?2 AND id < ?3 ORDER BY id DESC LIMIT 21",
      tenant,
      "verified",
      "vfy_Z",
    );
    expect(verdictPlan).toContain("verifications_tenant_verdict_idx");
    expect(verdictPlan).not.toContain("USE TEMP B-TREE");
    const assessedPlan = await queryPlan(
      "SELECT id FROM verifications WHERE tenant_id = ?1 AND ((verdict ->> '$.assessment') = 'none') = ?2 ORDER BY id DESC LIMIT 21",
      tenant,
      1,
    );
    expect(assessedPlan).toContain("verifications_tenant_assessed_idx");
    expect(assessedPlan).not.toContain("USE TEMP B-TREE");
    const templatePlan = await queryPlan(
      "SELECT id FROM verifications WHERE tenant_id = ?1 AND template_id = ?2 ORDER BY id DESC LIMIT 21",
      tenant,
      "tpl_01JD2Y4N9M6Q8R0S2T4V6W8X0Z",
    );
    expect(templatePlan).toContain("verifications_tenant_template_idx");
    expect(templatePlan).not.toContain("USE TEMP B-TREE");
    const searchPlan = await queryPlan(
      "SELECT verification_id FROM verification_search_terms WHERE tenant_id = ?1 AND term >= lower(?2) AND term < lower(?2) || char(1114111)",
      tenant,
      "clm",
    );
    expect(searchPlan).toMatch(/SEARCH verification_search_terms USING (COVERING )?INDEX sqlite_autoindex_verification_search_terms_1 \(tenant_id=\? AND term>\? AND term<\?\)/);
    const deliveriesPlan = await queryPlan("SELECT id FROM webhook_deliveries WHERE tenant_id = ?1 AND status = ?2 ORDER BY id DESC LIMIT 21", tenant, "failed");
    expect(deliveriesPlan).toContain("webhook_deliveries_tenant_status_idx");
    expect(deliveriesPlan).not.toContain("USE TEMP B-TREE");
  });
});

describe("recent webhook deliveries across verifications", () => {
  it("lists the tenant's deliveries newest first with their attempts, pages by cursor and filters by status", async () => {
    const t = await seedTenant();
    const other = await seedTenant();
    const ok = receiver();
    const failing = receiver("fail=always&status=500");
    await createVerification(t.key, { max_captures: 1, webhook_url: ok.url });
    // The events consumer runs different verifications' events concurrently: the second delivery is
    // the newer one only if the first exists before the second verification is created.
    await waitFor(async () => ((await callJson("/v1/webhook-deliveries", { key: t.key })).body.items.length === 1 ? true : undefined), {
      what: "the first delivery",
    });
    await createVerification(t.key, { max_captures: 1, webhook_url: failing.url });
    await createVerification(other.key, { max_captures: 1, webhook_url: ok.url });

    const all = await waitFor(async () => {
      const res = await callJson("/v1/webhook-deliveries", { key: t.key });
      const settled = res.body.items.filter((d: { attempt_count: number }) => d.attempt_count > 0);
      return res.body.items.length === 2 && settled.length === 2 ? res.body.items : undefined;
    }, { what: "two attempted deliveries" });
    expect(all.map((d: { url: string }) => d.url)).toEqual([failing.url, ok.url]);
    expect(all[1].status).toBe("succeeded");
    expect(all[1].attempts[0].status_code).toBe(204);

    const page1 = await callJson("/v1/webhook-deliveries?limit=1", { key: t.key });
    expect(page1.body.items).toHaveLength(1);
    const page2 = await callJson(`/v1/webhook-deliveries?limit=1&cursor=${encodeURIComponent(page1.body.next_cursor)}`, { key: t.key });
    expect(page2.body.items.map((d: { id: string }) => d.id)).toEqual([all[1].id]);
    expect(page2.body.next_cursor).toBeUndefined();

    const succeeded = await callJson("/v1/webhook-deliveries?status=succeeded", { key: t.key });
    expect(succeeded.body.items.map((d: { id: string }) => d.id)).toEqual([all[1].id]);
    const session = await signIn(t.id);
    expect((await callJson("/v1/webhook-deliveries", { headers: { Cookie: session.cookie } })).body.items).toHaveLength(2);

    const tampered = await callJson(`/v1/webhook-deliveries?cursor=${encodeURIComponent(`${page1.body.next_cursor}x`)}`, { key: t.key });
    expect(tampered.status).toBe(400);
    expect(tampered.body.error.fields.cursor).toBeDefined();
    const otherFilter = await callJson(`/v1/webhook-deliveries?limit=1&status=failed&cursor=${encodeURIComponent(page1.body.next_cursor)}`, { key: t.key });
    expect(otherFilter.status).toBe(400);
    expect(otherFilter.body.error.fields.cursor).toMatch(/^This cursor belongs to another query/);
  });
});

describe("send test event", () => {
  it("sends one signed webhook.test event and reports what the receiver answered", async () => {
    const t = await seedTenant();
    const { cookie } = await signIn(t.id);
    const r = receiver();
    const res = await callJson("/v1/webhook-test", { body: { url: r.url }, headers: dashboard(cookie) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ url: r.url, delivered: true, status_code: 204, event: { type: "webhook.test", data: { object: { tenant_id: t.id } } } });
    const [hit] = await received(r.id);
    expect(hit).toBeDefined();
    const secret = (await findTenant(db(), t.id))!.webhookSecret;
    expect(new Webhook(secret).verify(hit!.body, hit!.headers)).toMatchObject({ id: res.body.event.id, type: "webhook.test" });

    const failing = receiver("fail=always&status=503");
    const refused = await callJson("/v1/webhook-test", { key: t.key, body: { url: failing.url } });
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({ delivered: false, status_code: 503, error: "HTTP 503" });
    // A host that does not resolve is named as such, not as the runtime's "internal error; reference = …".
    const nowhere = await callJson("/v1/webhook-test", { key: t.key, body: { url: "http://receiver.invalid/hook" } });
    expect(nowhere.status).toBe(200);
    expect(nowhere.body.delivered).toBe(false);
    expect(nowhere.body.status_code).toBeUndefined();
    expect(nowhere.body.error).toBe("network error: could not connect (the host did not resolve, or refused the connection)");
    await endWindow(`webhook-test:${t.id}`);
  });

  it("applies the webhook_url rules outside local development, and a per-tenant limit", async () => {
    const t = await seedTenant();
    const production = { ENVIRONMENT: "staging", PUBLIC_BASE_URL: "https://verify.example.com" } as Partial<Env>;
    const local = await callConfigured(production, "/v1/webhook-test", { key: t.key, body: { url: "http://127.0.0.1:9/hook" } });
    expect(local.status).toBe(400);
    expect(local.body.error.fields.url).toMatch(/https/);

    const r = receiver();
    for (let i = 0; i < TEST_EVENT_LIMIT.limit; i += 1) {
      expect((await callJson("/v1/webhook-test", { key: t.key, body: { url: r.url } })).status).toBe(200);
    }
    const over = await callJson("/v1/webhook-test", { key: t.key, body: { url: r.url } });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("Retry-After"))).toBeGreaterThan(0);
    await endWindow(`webhook-test:${t.id}`);
  });
});

describe("tenant display name", () => {
  it("is a tenant setting: the session changes it, /v1/me and the public certificate show it", async () => {
    const t = await seedTenant();
    const { cookie } = await signIn(t.id);
    const set = await callJson("/v1/tenant/settings", { method: "PATCH", body: { display_name: "  Northwind Claims  " }, headers: dashboard(cookie) });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ display_name: "Northwind Claims", retention_days: null, share_reuse_index: false, ai_detection_provider: null });
    expect((await callJson("/v1/me", { headers: { Cookie: cookie } })).body.tenant.display_name).toBe("Northwind Claims");
    const v = await createVerification(t.key, { max_captures: 1 });
    expect((await callJson(`/v1/verifications/${v.id}/public`)).body.tenant.display_name).toBe("Northwind Claims");
    for (const bad of [{ display_name: "" }, { display_name: "   " }, { display_name: "x".repeat(101) }, { display_name: 7 }]) {
      expect((await callJson("/v1/tenant/settings", { method: "PATCH", body: bad, headers: dashboard(cookie) })).status, JSON.stringify(bad)).toBe(400);
    }
  });

  it("is one line: control characters and line separators are refused (400 naming the field), and nothing changes", async () => {
    const t = await seedTenant();
    const { cookie } = await signIn(t.id);
    const before = (await callJson("/v1/tenant/settings", { headers: dashboard(cookie) })).body;
    const lines = ["Acme\nVerified by the service: example.com", "Acme\r\nX", "Acme\u2028Verified", "Acme\u2029Verified", "Acme\u0000", "Acme\u001b[31m", "Acme\u0085", "Acme\tInc", "Acme\n"];
    for (const name of lines) {
      const res = await callJson("/v1/tenant/settings", { method: "PATCH", body: { display_name: name, retention_days: 30 }, headers: dashboard(cookie) });
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
      expect(res.body.error.fields.display_name).toMatch(/control characters and line breaks/);
    }
    // Half a surrogate pair is no character: stored it would read back as U+FFFD.
    for (const name of ["Acme \ud800", "Acme \udfff Inc", "\udc00\ud800"]) {
      const res = await callJson("/v1/tenant/settings", { method: "PATCH", body: { display_name: name }, headers: dashboard(cookie) });
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect(res.body.error.fields.display_name).toMatch(/surrogate/);
    }
    // Settings probe of 2026-12-04: an override turned the certificate page's "as declared by the
    // tenant" into mirrored gibberish, and a name of invisible characters printed as nothing.
    for (const name of ["Acme \u202E)noitazinagro eht yb deifirev( ", "Acme \u2067x", "\u200FAcme"]) {
      const res = await callJson("/v1/tenant/settings", { method: "PATCH", body: { display_name: name }, headers: dashboard(cookie) });
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect(res.body.error.fields.display_name).toMatch(/^Must not hold bidirectional controls/);
    }
    // Probe of 2026-12-06: Hangul fillers and the blank Braille pattern passed for something that shows.
    for (const name of ["\u200b\u2060", "\u0301", "\u3000\u200d", "\u3164", "\u2800", "\u115f\u1160", "\uffa0"]) {
      const res = await callJson("/v1/tenant/settings", { method: "PATCH", body: { display_name: name }, headers: dashboard(cookie) });
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect(res.body.error.fields.display_name).toMatch(/^Must show something|^Must not be empty/);
    }
    // Probe of 2026-12-06 (second): a filler beside visible text made "Acme" and "Acme\u3164" two names that look alike.
    for (const name of ["Acme\u3164", "Acme\u2800", "\u115FAcme"]) {
      const res = await callJson("/v1/tenant/settings", { method: "PATCH", body: { display_name: name }, headers: dashboard(cookie) });
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect(res.body.error.fields.display_name).toMatch(/^Must not hold Hangul fillers/);
    }
    expect((await callJson("/v1/tenant/settings", { headers: dashboard(cookie) })).body).toEqual(before);
    expect((await callJson("/v1/tenant/settings", { method: "PATCH", body: { display_name: "Zürich Versicherung — 東京 😀" }, headers: dashboard(cookie) })).status).toBe(200);
    expect((await callJson("/v1/tenant/settings", { method: "PATCH", body: { display_name: "شركة التأمين 👨‍👩‍👧" }, headers: dashboard(cookie) })).status).toBe(200);
  });

  it("a first sign-in names its new tenant after the identity provider's name claim kept to one line (it is not input the API validated)", async () => {
    const subject = `ctl-${crypto.randomUUID()}`;
    const signedIn = await signInIdentity(db(), { provider: "oidc", subject, displayName: "Evil\nVerified domain: bank.example\u2028\u0000Corp" }, { method: "oidc", client: { ip: null, userAgent: null } });
    expect((await findTenant(db(), signedIn.tenantId))?.displayName).toBe("Evil Verified domain: bank.example Corp");
    // Bidirectional controls are dropped; a claim with nothing visible left names the tenant after the address.
    const reversed = await signInIdentity(db(), { provider: "oidc", subject: `${subject}-bidi`, displayName: "Acme \u202E)nimda(" }, { method: "oidc", client: { ip: null, userAgent: null } });
    expect((await findTenant(db(), reversed.tenantId))?.displayName).toBe("Acme )nimda(");
    const invisible = await signInIdentity(db(), { provider: "oidc", subject: `${subject}-zw`, displayName: "\u200b\u2060", email: "zw@example.com" }, { method: "oidc", client: { ip: null, userAgent: null } });
    expect((await findTenant(db(), invisible.tenantId))?.displayName).toBe("zw");
    // A filler beside the name prints as nothing (the probe of 2026-12-06 found "Acme\u3164" kept), and a
    // long name is cut to 100 code units without splitting a surrogate pair (it was cut at 100 exactly).
    const filled = await signInIdentity(db(), { provider: "oidc", subject: `${subject}-filler`, displayName: "Acme\u3164" }, { method: "oidc", client: { ip: null, userAgent: null } });
    expect((await findTenant(db(), filled.tenantId))?.displayName).toBe("Acme");
    const long = await signInIdentity(db(), { provider: "oidc", subject: `${subject}-long`, displayName: `${"a".repeat(99)}\u{1F600}tail` }, { method: "oidc", client: { ip: null, userAgent: null } });
    expect((await findTenant(db(), long.tenantId))?.displayName).toBe("a".repeat(99));
  });
});

describe("console sign-in", () => {
  it("lists the providers this deployment offers", async () => {
    const local = await callJson("/v1/auth/providers");
    expect(local.status).toBe(200);
    // The test Worker has an OIDC provider (the loopback fake) and is local development.
    expect(local.body.providers.map((p: { id: string }) => p.id)).toEqual(["oidc", "magic_link", "dev"]);
    const staging = await callConfigured(
      { ENVIRONMENT: "staging", PUBLIC_BASE_URL: "https://verify.example.com", OIDC_ISSUER: undefined } as Partial<Env>,
      "/v1/auth/providers",
    );
    expect(staging.body.providers).toEqual([]);
    const configured = await callConfigured(
      {
        ENVIRONMENT: "staging",
        PUBLIC_BASE_URL: "https://verify.example.com",
        OIDC_ISSUER: "https://id.example.com",
        OIDC_CLIENT_ID: "console",
        OIDC_CLIENT_SECRET: "s3cret",
        EMAIL_API_URL: "https://mail.example.com/send",
        EMAIL_API_KEY: "k",
        EMAIL_FROM: "no-reply@example.com",
      } as Partial<Env>,
      "/v1/auth/providers",
    );
    expect(configured.body.providers).toEqual([
      { id: "oidc", kind: "redirect", name: "Single sign-on", login_url: "/v1/auth/oidc/login" },
      { id: "magic_link", kind: "email", name: "Email me a sign-in link" },
    ]);
  });

  it("a magic link requested from the console lands back on the page it was asked from", async () => {
    const address = `ops-${crypto.randomUUID().slice(0, 8)}@example.com`;
    expect((await callJson("/v1/auth/magic-link", { body: { email: address, return_to: "/console/verifications?status=completed" } })).status).toBe(200);
    const link = await nextSignInLink(address);
    const spent = await call(link, { method: "POST", redirect: "manual" });
    expect(spent.status).toBe(303);
    expect(spent.headers.get("Location")).toBe("/console/verifications?status=completed");
    await spent.text();

    // Another host is never a landing place.
    expect((await callJson("/v1/auth/magic-link", { body: { email: address, return_to: "//evil.example/console" } })).status).toBe(200);
    const second = await call(await nextSignInLink(address, 1), { method: "POST", redirect: "manual" });
    expect(second.headers.get("Location")).toBe("/v1/me");
    await second.text();
    await endWindow(magicLinkLimitKey(address, testClientKey(48)));
    for (const key of signInAddressLimitKeys(address)) await endWindow(key);
  });

  it("a browser whose sign-in fails is sent to the console's sign-in page with a code; an API client gets the error", async () => {
    const browser = await call("/v1/auth/dev/callback?code=dev%40localhost&state=x", { headers: { Accept: "text/html,application/xhtml+xml" }, redirect: "manual" });
    expect(browser.status).toBe(303);
    expect(browser.headers.get("Location")).toBe("/console/sign-in?error=expired");
    await browser.text();
    const api = await callJson("/v1/auth/dev/callback?code=dev%40localhost&state=x");
    expect(api.status).toBe(401);

    // A flow that started from a console page keeps it.
    const login = await call("/v1/auth/dev/login?return_to=%2Fconsole%2Fsettings", { redirect: "manual" });
    const flowCookie = login.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    await login.text();
    const forged = await call("/v1/auth/dev/callback?code=dev%40localhost&state=not-the-state", { headers: { Accept: "text/html", Cookie: flowCookie }, redirect: "manual" });
    expect(forged.status).toBe(303);
    expect(forged.headers.get("Location")).toBe("/console/sign-in?error=failed&return_to=%2Fconsole%2Fsettings");
    await forged.text();
  });
});

describe("console shell", () => {
  it("signed out, any console page redirects to sign-in and remembers where it was going", async () => {
    const res = await call("/console/verifications/vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z?tab=photos", { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/console/sign-in?return_to=%2Fconsole%2Fverifications%2Fvfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z%3Ftab%3Dphotos");
    await res.text();
    const signIn = await call("/console/sign-in?return_to=%2Fconsole", { redirect: "manual" });
    expect(signIn.status).toBe(200);
    expect(await signIn.text()).toContain('<script src="/assets/console.js" defer></script>');
  });

  it("signed in, serves the shell with a strict policy; the sign-in page forwards to return_to", async () => {
    const t = await seedTenant();
    const { cookie } = await signIn(t.id);
    const res = await call("/console/templates", { headers: { Cookie: cookie }, redirect: "manual" });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Security-Policy")).toContain("script-src 'self'");
    expect(res.headers.get("Content-Security-Policy")).toContain("frame-ancestors 'none'");
    // Evidence comes from this Worker's signed URLs: no other host may serve the console an image.
    const imgSrc = res.headers.get("Content-Security-Policy")!.split("; ").find((d) => d.startsWith("img-src"));
    expect(imgSrc).toBe("img-src 'self' data: blob:");
    expect(res.headers.get("Referrer-Policy")).toBe("no-referrer");
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    await res.text();
    const forward = await call("/console/sign-in?return_to=%2Fconsole%2Fdevelopers", { headers: { Cookie: cookie }, redirect: "manual" });
    expect(forward.status).toBe(302);
    expect(forward.headers.get("Location")).toBe("/console/developers");
    await forward.text();
    const offsite = await call("/console/sign-in?return_to=%2F%2Fevil.example", { headers: { Cookie: cookie }, redirect: "manual" });
    expect(offsite.headers.get("Location")).toBe("/console");
    await offsite.text();

    // Signed out elsewhere: the API refuses the cookie, and the sign-in page is served (no redirect loop).
    const out = await call("/v1/auth/logout", { method: "POST", headers: dashboard(cookie) });
    expect(out.status).toBe(200);
    await out.text();
    expect((await callJson("/v1/me", { headers: { Cookie: cookie } })).status).toBe(401);
    const page = await call("/console/sign-in?return_to=%2Fconsole%2Ftemplates", { headers: { Cookie: cookie }, redirect: "manual" });
    expect(page.status).toBe(200);
    await page.text();
  });
});
