import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { botSignature } from "../helpers/bot";
import { linkTemplates, verifications } from "../../src/db/schema";
import { DEFAULT_NOTIFY_EMAIL_DAILY_LIMIT, notifyEmailDailyLimit, notifyEmailLimiterKey } from "../../src/domain/notifications/email-quota";
import { callJson, db, seedTenant } from "../helpers/api";
import { callConfigured } from "../helpers/configured";
import { awayFromWindowEdge, endWindow } from "../helpers/limits";

const DAY_MS = 24 * 60 * 60 * 1000;
const CAP = { NOTIFY_EMAIL_DAILY_LIMIT: "3" };
const notify = (extra: Record<string, unknown> = {}) => ({ max_captures: 1, notify_email: "ops@acme.example", ...extra });

const tenantsUsed: string[] = [];
afterEach(async () => {
  for (const id of tenantsUsed.splice(0)) {
    await endWindow(notifyEmailLimiterKey(id));
    await endWindow(notifyEmailLimiterKey(id, "links"));
  }
});

async function tenant() {
  const t = await seedTenant();
  tenantsUsed.push(t.id);
  return t;
}

async function countOf(tenantId: string): Promise<number> {
  return (await db().select({ id: verifications.id }).from(verifications).where(eq(verifications.tenantId, tenantId))).length;
}

describe("notify_email daily cap per tenant", () => {
  it("refuses the creation beyond the cap with 429 too_many_requests until midnight UTC; other creations go on", async () => {
    await awayFromWindowEdge(DAY_MS);
    const t = await tenant();
    const first = await callConfigured(CAP, "/v1/verifications", { key: t.key, body: notify(), headers: { "Idempotency-Key": "first" } });
    expect(first.status).toBe(201);
    for (let i = 0; i < 2; i += 1) expect((await callConfigured(CAP, "/v1/verifications", { key: t.key, body: notify() })).status).toBe(201);

    const refused = await callConfigured(CAP, "/v1/verifications", { key: t.key, body: notify() });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("too_many_requests");
    expect(refused.body.error.message).toMatch(/^This tenant may create 3 verifications with notify_email per day/);
    const untilMidnight = Math.ceil((DAY_MS - (Date.now() % DAY_MS)) / 1000);
    expect(Math.abs(Number(refused.headers.get("Retry-After")) - untilMidnight)).toBeLessThanOrEqual(2);
    expect(await countOf(t.id)).toBe(3);

    // A replay of an earlier request is the earlier response, not a new email.
    const replay = await callConfigured(CAP, "/v1/verifications", { key: t.key, body: notify(), headers: { "Idempotency-Key": "first" } });
    expect(replay.status).toBe(201);
    expect(replay.body.id).toBe(first.body.id);
    // Without notify_email, and for another tenant, creation goes on.
    expect((await callConfigured(CAP, "/v1/verifications", { key: t.key, body: { max_captures: 1 } })).status).toBe(201);
    const other = await tenant();
    expect((await callConfigured(CAP, "/v1/verifications", { key: other.key, body: notify() })).status).toBe(201);

    // The bot's creations count against the same allowance.
    const raw = JSON.stringify({ tenant_id: t.id, ...notify() });
    const bot = await callConfigured(CAP, "/v1/bot/verifications", {
      rawBody: raw,
      headers: { "Content-Type": "application/json", "X-Bot-Auth": await botSignature("/v1/bot/verifications", raw) },
    });
    expect(bot.status).toBe(429);
    expect(bot.body.error.code).toBe("too_many_requests");
    expect(await countOf(t.id)).toBe(4);
  });

  it("link-template starts with notify_email have an allowance of their own; beyond it the link answers a 429 page and starts nothing", async () => {
    await awayFromWindowEdge(DAY_MS);
    const t = await tenant();
    const slug = `notify-${Date.now().toString(36)}`;
    const published = await callJson("/v1/link-templates", { key: t.key, body: { slug, name: "Roof", ...notify() } });
    expect(published.status).toBe(201);
    for (let i = 0; i < 3; i += 1) expect((await callConfigured(CAP, `/l/${t.slug}/${slug}`)).status).toBe(303);
    const refused = await callConfigured(CAP, `/l/${t.slug}/${slug}`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Content-Type")).toMatch(/text\/html/);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(refused.text).toMatch(/try again later/i);
    expect(await countOf(t.id)).toBe(3);
    const row = await db().select().from(linkTemplates).where(eq(linkTemplates.tenantId, t.id)).get();
    expect(row!.startedTotal).toBe(3);
    // Visitors of a public link spend the links' allowance, not the one the tenant's back end relies on
    // (webhook probe of 2026-12-07: 96 anonymous starts locked the tenant's API out until midnight).
    expect((await callConfigured(CAP, "/v1/verifications", { key: t.key, body: notify() })).status).toBe(201);
  });

  it("defaults to 100 a day; 0 turns notify_email off; a malformed setting is a configuration error", async () => {
    expect(DEFAULT_NOTIFY_EMAIL_DAILY_LIMIT).toBe(100);
    expect(notifyEmailDailyLimit({ ...env, NOTIFY_EMAIL_DAILY_LIMIT: undefined })).toBe(100);
    expect(notifyEmailDailyLimit({ ...env, NOTIFY_EMAIL_DAILY_LIMIT: " 250 " })).toBe(250);
    expect(() => notifyEmailDailyLimit({ ...env, NOTIFY_EMAIL_DAILY_LIMIT: "ten" })).toThrow(/NOTIFY_EMAIL_DAILY_LIMIT/);
    expect(() => notifyEmailDailyLimit({ ...env, NOTIFY_EMAIL_DAILY_LIMIT: "-1" })).toThrow(/NOTIFY_EMAIL_DAILY_LIMIT/);
    const t = await tenant();
    const off = await callConfigured({ NOTIFY_EMAIL_DAILY_LIMIT: "0" }, "/v1/verifications", { key: t.key, body: notify() });
    expect(off.status).toBe(429);
    expect(await countOf(t.id)).toBe(0);
  });
});
