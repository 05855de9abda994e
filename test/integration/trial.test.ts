import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { verifications } from "../../src/db/schema";
import { rateLimiterObject } from "../../src/durable-objects/rate-limiter-client";
import { TRIAL_LIMIT, TRIAL_WINDOW_MS, trialLimiterKey } from "../../src/domain/trial/trial";
import { callJson, db, ensureTrialTenant } from "../helpers/api";
import { awayFromWindowEdge, endWindow } from "../helpers/limits";

const trialTenant = env.TRIAL_TENANT_ID!;
let n = 0;
const clientIp = () => `203.0.113.${(n += 1)}`;

function start(ip: string, body?: unknown) {
  return callJson("/v1/public/trial/start", { method: "POST", headers: { "CF-Connecting-IP": ip }, ...(body !== undefined ? { body } : {}) });
}

async function trialCount(): Promise<number> {
  return (await db().select({ id: verifications.id }).from(verifications).where(eq(verifications.tenantId, trialTenant))).length;
}

beforeAll(async () => {
  await ensureTrialTenant();
});

describe("trial start", () => {
  it("mints a verification under the trial tenant, tagged for messaging delivery", async () => {
    const ip = clientIp();
    const res = await start(ip, { source: "landing-page" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["capture_url", "verification_id"]);
    expect(res.body.capture_url).toBe(`http://localhost:8787/c/${res.body.verification_id}`);
    const row = await db().select().from(verifications).where(eq(verifications.id, res.body.verification_id)).get();
    expect(row).toMatchObject({ tenantId: trialTenant, originChannel: "wa", status: "pending" });
    expect(row!.config.metadata).toEqual({ origin_channel: "wa", source: "landing-page" });
    expect(row!.config.max_captures).toBe(1);

    const bare = await start(ip);
    expect(bare.status).toBe(201);
    const bareRow = await db().select().from(verifications).where(eq(verifications.id, bare.body.verification_id)).get();
    expect(bareRow!.config.metadata).toEqual({ origin_channel: "wa" });

    expect((await start(ip, { source: "x".repeat(101) })).status).toBe(400);
    // An unauthenticated door writing into metadata: a tag is one line.
    const control = await start(ip, { source: "ad\u0000\u001b[2J" });
    expect(control.status).toBe(400);
    expect(control.body.error.fields.source).toMatch(/control characters/);
    expect((await start(ip, { tenant_id: "tnt_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" })).status).toBe(400);
    await endWindow(trialLimiterKey(ip));
  });

  it("allows 1000 starts per hour per IP: the 1001st is 429 with Retry-After; another IP is unaffected", async () => {
    await awayFromWindowEdge(TRIAL_WINDOW_MS);
    const ip = clientIp();
    const otherIp = clientIp();
    // The first 999 of the hour, counted in the same limiter object the endpoint uses.
    const limiter = rateLimiterObject(env, trialLimiterKey(ip));
    for (let i = 1; i < TRIAL_LIMIT; i += 1) expect((await limiter.hit(TRIAL_LIMIT, TRIAL_WINDOW_MS)).allowed).toBe(true);
    const before = await trialCount();

    const thousandth = await start(ip);
    expect(thousandth.status).toBe(201);

    const sentAt = Date.now();
    const limited = await start(ip);
    const answeredAt = Date.now();
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("too_many_requests");
    const windowEnd = sentAt - (sentAt % TRIAL_WINDOW_MS) + TRIAL_WINDOW_MS;
    const retryAfter = Number(limited.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThanOrEqual(Math.ceil((windowEnd - answeredAt) / 1000));
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil((windowEnd - sentAt) / 1000));
    expect((await start(ip)).status).toBe(429);

    const elsewhere = await start(otherIp);
    expect(elsewhere.status).toBe(201);
    expect(await trialCount()).toBe(before + 2); // refused starts created nothing

    // When the window ends the address may start again.
    await endWindow(trialLimiterKey(ip));
    expect((await start(ip)).status).toBe(201);
    await endWindow(trialLimiterKey(ip));
    await endWindow(trialLimiterKey(otherIp));
  });
});
