import { env } from "cloudflare:workers";
import { eq, like } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { magicLinks, uploads, verifications } from "../../src/db/schema";
import { magicLinkLimitKey, signInAddressLimitKeys } from "../../src/domain/accounts/magic-links";
import { rateLimiterObject } from "../../src/durable-objects/rate-limiter-client";
import { ADDRESS_EMAIL_LIMITS, CAPTURE_FLOW_LIMITS, clientKey, CREATE_LIMITS, limitKey, PUBLIC_LIMITS, type LocationRateLimitRule, type RateLimitRule } from "../../src/domain/public-limits";
import { VERIFICATION_WRITE_LIMIT } from "../../src/model/verification/write-window";
import { verificationObject } from "../../src/durable-objects/verification-client";
import { call, callJson, createVerification, db, eventually, seedTenant, type TestTenant } from "../helpers/api";
import { toBase64, uniqueJpeg } from "../helpers/images";
import { awayFromWindowEdge, endWindow } from "../helpers/limits";

let t: TestTenant;
let n = 0;
const ip = () => `198.51.100.${(n += 1)}`;
const used: string[] = [];

beforeAll(async () => {
  t = await seedTenant();
});
afterAll(async () => {
  for (const key of used) await endWindow(key);
});

/** Spends all but `left` of a rule's budget for `subject`, in the limiter object the endpoint uses. */
async function spend(rule: RateLimitRule, subject: string, left = 1): Promise<void> {
  const key = limitKey(rule, subject);
  used.push(key);
  const limiter = rateLimiterObject(env, key);
  for (let i = 0; i < rule.limit - left; i += 1) expect((await limiter.hit(rule.limit, rule.windowMs)).allowed).toBe(true);
}

/** Spends all but `left` of a per-location rule's budget for `subject`, in the binding the endpoint uses. */
async function spendAtLocation(rule: LocationRateLimitRule, subject: string, left = 1): Promise<void> {
  for (let i = 0; i < rule.limit - left; i += 1) expect((await env[rule.binding].limit({ key: subject })).success).toBe(true);
}

function expectLimited(res: { status: number; body: any; headers: Headers }, rule: RateLimitRule | LocationRateLimitRule) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ error: { code: "too_many_requests", message: rule.message } });
  const retryAfter = Number(res.headers.get("Retry-After"));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual("binding" in rule ? rule.periodSeconds : rule.windowMs / 1000);
}

describe("client keys", () => {
  it("IPv4 as is, IPv6 by its /64, IPv4-mapped as IPv4, nothing as one shared key", () => {
    expect(clientKey("203.0.113.9")).toBe("203.0.113.9");
    expect(clientKey("2001:db8:1:2:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:1:2::/64");
    expect(clientKey("2001:0db8:0001:0002::1")).toBe("2001:db8:1:2::/64");
    expect(clientKey("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(clientKey("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(clientKey(undefined)).toBe("unknown");
    expect(clientKey("not an address")).toBe("unknown");
  });

  it("by its /48 where a door asks for it (the doors that send mail to an address they are given)", () => {
    expect(clientKey("2001:db8:1:2:aaaa:bbbb:cccc:dddd", 48)).toBe("2001:db8:1::/48");
    expect(clientKey("2001:db8:1:ffff::1", 48)).toBe("2001:db8:1::/48");
    expect(clientKey("2001:db8:2::1", 48)).toBe("2001:db8:2::/48");
    expect(clientKey("203.0.113.9", 48)).toBe("203.0.113.9");
    expect(clientKey("::ffff:203.0.113.9", 48)).toBe("203.0.113.9");
  });
});

describe("capture flow", () => {
  // Counted by the Rate Limiting binding (miniflare simulates it in memory, in fixed windows).
  it("GET /v1/verify/{token}: 60 per minute per client, then 429 with Retry-After", async () => {
    await awayFromWindowEdge(CAPTURE_FLOW_LIMITS.captureRead.periodSeconds * 1000);
    const v = await createVerification(t.key);
    const client = ip();
    await spendAtLocation(CAPTURE_FLOW_LIMITS.captureRead, client);
    const read = (from: string) => callJson(`/v1/verify/${v.id}`, { headers: { "CF-Connecting-IP": from } });
    expect((await read(client)).status).toBe(200);
    expectLimited(await read(client), CAPTURE_FLOW_LIMITS.captureRead);
    // Guessing ids is limited just the same.
    expectLimited(await callJson("/v1/verify/vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z", { headers: { "CF-Connecting-IP": client } }), CAPTURE_FLOW_LIMITS.captureRead);
    expect((await read(ip())).status).toBe(200);
  });

  it("GET /v1/verifications/{id}/public counts with the verify read: the same id, the same budget", async () => {
    await awayFromWindowEdge(CAPTURE_FLOW_LIMITS.captureRead.periodSeconds * 1000);
    const v = await createVerification(t.key);
    const client = ip();
    await spendAtLocation(CAPTURE_FLOW_LIMITS.captureRead, client);
    const view = (from: string, id = v.id) => callJson(`/v1/verifications/${id}/public`, { headers: { "CF-Connecting-IP": from } });
    expect((await view(client)).status).toBe(200);
    expectLimited(await view(client), CAPTURE_FLOW_LIMITS.captureRead);
    expectLimited(await callJson(`/v1/verify/${v.id}`, { headers: { "CF-Connecting-IP": client } }), CAPTURE_FLOW_LIMITS.captureRead);
    expectLimited(await view(client, "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z"), CAPTURE_FLOW_LIMITS.captureRead);
    expect((await view(ip())).status).toBe(200);
  });

  it("writes: 300 per minute per client over all verifications", async () => {
    await awayFromWindowEdge(CAPTURE_FLOW_LIMITS.captureWrite.periodSeconds * 1000);
    const v = await createVerification(t.key);
    const client = ip();
    await spendAtLocation(CAPTURE_FLOW_LIMITS.captureWrite, client);
    const report = (from: string) =>
      callJson(`/v1/verifications/${v.id}/progress`, {
        headers: { "CF-Connecting-IP": from },
        body: { schema_version: 1, kind: "step_reached", step: "landing", elapsed_ms: 1 },
      });
    expect((await report(client)).status).toBe(204);
    for (const [path, body] of [
      ["progress", { schema_version: 1, kind: "step_reached", step: "landing", elapsed_ms: 1 }],
      ["captures/upload-url", { content_type: "image/jpeg" }],
      ["captures", { image_base64: "AAAA" }],
      ["answers", { step_key: "x", value: "y" }],
      ["submit", undefined],
    ] as const) {
      const res = await callJson(`/v1/verifications/${v.id}/${path}`, { method: "POST", headers: { "CF-Connecting-IP": client }, ...(body ? { body } : {}) });
      expectLimited(res, CAPTURE_FLOW_LIMITS.captureWrite);
    }
    expect((await report(ip())).status).toBe(204);
  });

  it("the upload URL's PUT counts with the writes: beyond the client's budget, 429 before a byte is stored", async () => {
    await awayFromWindowEdge(CAPTURE_FLOW_LIMITS.captureWrite.periodSeconds * 1000);
    const v = await createVerification(t.key);
    const minted = await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { headers: { "CF-Connecting-IP": ip() }, body: { content_type: "image/jpeg" } });
    expect(minted.status).toBe(200);
    const path = new URL(minted.body.upload_url).pathname;
    const bytes = uniqueJpeg();
    const put = (from: string) => callJson(path, { method: "PUT", rawBody: bytes, headers: { "CF-Connecting-IP": from, "Content-Type": "image/jpeg" } });
    const client = ip();
    await spendAtLocation(CAPTURE_FLOW_LIMITS.captureWrite, client, 0);
    expectLimited(await put(client), CAPTURE_FLOW_LIMITS.captureWrite);
    expect(await env.EVIDENCE.head(minted.body.image_key)).toBeNull();
    expect((await put(ip())).status).toBe(200);
  });

  // Counted by the verification's own Durable Object, which every capture-flow write calls.
  it("writes: 100 per minute into one verification, from any clients and doors; beyond, refused before anything is written", async () => {
    const rule = VERIFICATION_WRITE_LIMIT;
    await awayFromWindowEdge(rule.windowMs);
    const v = await createVerification(t.key, { max_captures: 5 });
    const other = await createVerification(t.key);
    const report = (id: string) =>
      callJson(`/v1/verifications/${id}/progress`, { headers: { "CF-Connecting-IP": ip() }, body: { schema_version: 1, kind: "step_reached", step: "landing", elapsed_ms: 1 } });
    // 99 progress reports from 99 clients, a few at a time, and an upload URL: the 100th write.
    for (let i = 0; i < rule.limit - 1; i += 11) {
      const batch = await Promise.all(Array.from({ length: Math.min(11, rule.limit - 1 - i) }, () => report(v.id)));
      expect(batch.map((r) => r.status)).toEqual(batch.map(() => 204));
    }
    const minted = await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { headers: { "CF-Connecting-IP": ip() }, body: { content_type: "image/jpeg" } });
    expect(minted.status).toBe(200);
    const before = await db().select().from(verifications).where(eq(verifications.id, v.id)).get();
    const uploadsBefore = await db().select({ id: uploads.id }).from(uploads).where(eq(uploads.verificationId, v.id));
    for (const [path, body] of [
      ["progress", { schema_version: 1, kind: "step_reached", step: "capturing", elapsed_ms: 2 }],
      ["captures/upload-url", { content_type: "image/jpeg" }],
      ["captures", { image_base64: toBase64(uniqueJpeg()) }],
      ["answers", { step_key: "x", value: "y" }],
      ["submit", undefined],
    ] as const) {
      const res = await callJson(`/v1/verifications/${v.id}/${path}`, { method: "POST", headers: { "CF-Connecting-IP": ip() }, ...(body ? { body } : {}) });
      expectLimited(res, { ...rule, name: "verification-writes" });
    }
    // Nothing of the refused writes reached D1 or stayed in R2 (the inline capture's bytes are deleted again).
    expect(await db().select().from(verifications).where(eq(verifications.id, v.id)).get()).toEqual(before);
    expect(await db().select({ id: uploads.id }).from(uploads).where(eq(uploads.verificationId, v.id))).toEqual(uploadsBefore);
    expect((await env.EVIDENCE.list({ prefix: `verifications/${v.id}/` })).objects).toEqual([]);
    expect((await report(other.id)).status).toBe(204);
  });

  it("writes per verification: the object's count is the limit, and Retry-After is when its window ends", async () => {
    const rule = VERIFICATION_WRITE_LIMIT;
    await awayFromWindowEdge(rule.windowMs);
    const v = await createVerification(t.key);
    const stub = verificationObject(env, v.id);
    for (let i = 0; i < rule.limit; i += 1) expect((await stub.progress(v.id, "step_reached", { step: "landing" })).ok).toBe(true);
    const res = await callJson(`/v1/verifications/${v.id}/progress`, {
      headers: { "CF-Connecting-IP": ip() },
      body: { schema_version: 1, kind: "step_reached", step: "capturing", elapsed_ms: 1 },
    });
    expectLimited(res, { ...rule, name: "verification-writes" });
    const windowLeft = Math.ceil((rule.windowMs - (Date.now() % rule.windowMs)) / 1000);
    expect(Number(res.headers.get("Retry-After"))).toBeGreaterThanOrEqual(windowLeft - 1);
    expect(Number(res.headers.get("Retry-After"))).toBeLessThanOrEqual(windowLeft + 1);
  });
});

describe("creation per tenant", () => {
  const create = (key: string) => callJson("/v1/verifications", { key, body: { max_captures: 1 } });
  const createdBy = (tenantId: string) => db().select({ id: verifications.id }).from(verifications).where(eq(verifications.tenantId, tenantId)).all();

  /** Spends the tenant's allowance under `rule`, then: one more create goes through, the next is 429 and writes nothing. */
  async function exhaust(rule: LocationRateLimitRule, tenant: TestTenant, key: string): Promise<void> {
    await awayFromWindowEdge(rule.periodSeconds * 1000);
    await spendAtLocation(rule, tenant.id);
    expect((await create(key)).status).toBe(201);
    const before = await createdBy(tenant.id);
    expectLimited(await create(key), rule);
    expect(await createdBy(tenant.id)).toHaveLength(before.length);
  }

  it("POST /v1/verifications: 60 per minute per tenant with a publishable key; beyond, 429 and nothing created; the full key and other tenants go on", async () => {
    const [tenant, other] = [await seedTenant(), await seedTenant()];
    await exhaust(CREATE_LIMITS.publishableCreate, tenant, tenant.publishableKey);
    expect((await create(tenant.key)).status).toBe(201);
    expect((await create(other.publishableKey)).status).toBe(201);
  });

  // Probe of 2026-12-06: full keys had no per-tenant ceiling at all.
  it("POST /v1/verifications: 6000 per minute per tenant with a full key; beyond, 429 and nothing created; other tenants go on", async () => {
    const [tenant, other] = [await seedTenant(), await seedTenant()];
    await exhaust(CREATE_LIMITS.backendCreate, tenant, tenant.key);
    expect((await create(other.key)).status).toBe(201);
  });
});

describe("link starts", () => {
  it("GET /l/{org}/{slug}: 30 per 10 minutes per client; beyond, a 429 page and nothing created", async () => {
    await awayFromWindowEdge(PUBLIC_LIMITS.linkStart.windowMs);
    const slug = `limit-${Date.now().toString(36)}`;
    expect((await callJson("/v1/link-templates", { key: t.key, body: { slug, name: "Limited", max_captures: 1 } })).status).toBe(201);
    const client = "2001:db8:77:1::10";
    await spend(PUBLIC_LIMITS.linkStart, clientKey(client));
    const open = async (from: string, headers: Record<string, string> = {}) => {
      const res = await call(`/l/${t.slug}/${slug}`, { redirect: "manual", headers: { "CF-Connecting-IP": from, ...headers } });
      return { status: res.status, headers: res.headers, text: await res.text() };
    };
    const count = async () => (await db().select({ id: verifications.id }).from(verifications).where(eq(verifications.tenantId, t.id))).length;
    expect((await open(client)).status).toBe(303);
    const before = await count();
    // Another address of the same /64 is the same client.
    const limited = await open("2001:db8:77:1:ffff::2");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("content-type")).toMatch(/text\/html/);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(limited.text).toMatch(/Too many verifications started/);
    expect(await count()).toBe(before);
    // A link preview creates nothing and is not limited; another /64 is unaffected.
    expect((await open(client, { "User-Agent": "WhatsApp/2.23" })).status).toBe(200);
    expect((await open("2001:db8:77:2::10")).status).toBe(303);
    used.push(limitKey(PUBLIC_LIMITS.linkStart, clientKey("2001:db8:77:2::10")));
  });
});

describe("evidence downloads", () => {
  it("GET /v1/evidence/{token}: 1200 per minute per client, an IPv6 client by its /64", async () => {
    const rule = PUBLIC_LIMITS.evidenceDownload;
    await awayFromWindowEdge(rule.windowMs);
    const v = await createVerification(t.key, { max_captures: 1 });
    expect((await callJson(`/v1/verifications/${v.id}/captures`, { body: { image_base64: toBase64(uniqueJpeg()) } })).status).toBe(201);
    const listed = await callJson(`/v1/verifications/${v.id}/captures`, { key: t.key });
    const path = new URL(listed.body.items[0].image_url).pathname;
    const client = "2001:db8:88:1::10";
    await spend(rule, clientKey(client));
    const fetchFrom = async (from: string) => {
      const res = await call(path, { headers: { "CF-Connecting-IP": from } });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text };
    };
    expect((await fetchFrom(client)).status).toBe(200);
    // Another address of the same /64 is the same client; another /64 is not.
    expectLimited(await fetchFrom("2001:db8:88:1:ffff::2"), rule);
    expect((await fetchFrom("2001:db8:88:2::10")).status).toBe(200);
    used.push(limitKey(rule, clientKey("2001:db8:88:2::10")));
  });
});

describe("magic links", () => {
  it("POST /v1/auth/magic-link: 20 per hour per client whatever the address", async () => {
    await awayFromWindowEdge(PUBLIC_LIMITS.magicLinkClient.windowMs);
    const client = ip();
    const stamp = Date.now().toString(36);
    const request = (from: string, i: number) => {
      used.push(`magic-link:spray${stamp}${i}@example.test`);
      return callJson("/v1/auth/magic-link", { headers: { "CF-Connecting-IP": from }, body: { email: `spray${stamp}${i}@example.test` } });
    };
    for (let i = 0; i < PUBLIC_LIMITS.magicLinkClient.limit; i += 1) expect((await request(client, i)).status, `request ${i + 1}`).toBe(200);
    expectLimited(await request(client, 99), PUBLIC_LIMITS.magicLinkClient);
    expect((await request(ip(), 100)).status).toBe(200);
    used.push(limitKey(PUBLIC_LIMITS.magicLinkClient, client));
  });

  it("POST /v1/auth/magic-link: an IPv6 client is its /48, so its 65,536 /64s are one client", async () => {
    await awayFromWindowEdge(PUBLIC_LIMITS.magicLinkClient.windowMs);
    const stamp = Date.now().toString(36);
    const site = `2001:db8:${(Date.now() % 0xffff).toString(16)}`;
    const request = (from: string, i: number) => {
      const email = `site${stamp}${i}@example.test`;
      used.push(magicLinkLimitKey(email, clientKey(from, 48)), ...signInAddressLimitKeys(email));
      return callJson("/v1/auth/magic-link", { headers: { "CF-Connecting-IP": from }, body: { email } });
    };
    // Each request from another /64 of the same /48.
    for (let i = 0; i < PUBLIC_LIMITS.magicLinkClient.limit; i += 1) expect((await request(`${site}:${(i + 1).toString(16)}::1`, i)).status, `request ${i + 1}`).toBe(200);
    expectLimited(await request(`${site}:ff00::1`, 98), PUBLIC_LIMITS.magicLinkClient);
    expectLimited(await request(`${site}:ffff:1:2:3:4`, 99), PUBLIC_LIMITS.magicLinkClient);
    used.push(limitKey(PUBLIC_LIMITS.magicLinkClient, `${site}::/48`));
  });

  // Probe of 2026-12-06: `target+1@…`, `target+2@…` were each counted as an address of their own.
  it("POST /v1/auth/magic-link: one mailbox is mailed at most 10 times an hour and 20 a day, whoever asks and however tagged; beyond, the same answer and no email", async () => {
    const [hourly, daily] = [ADDRESS_EMAIL_LIMITS.signInHourly, ADDRESS_EMAIL_LIMITS.signInDaily];
    await awayFromWindowEdge(hourly.windowMs);
    await awayFromWindowEdge(daily.windowMs);
    const email = `target${Date.now().toString(36)}@example.test`;
    used.push(...signInAddressLimitKeys(email));
    const box = `address-cap-${crypto.randomUUID()}`;
    // A deployment that sends mail (through the loopback inbox), asked from many networks: every one a new client.
    const deployed = { ...env, ENVIRONMENT: "production", EMAIL_API_URL: `${env.FAKES_URL}/inbox/${box}`, EMAIL_API_KEY: "test-email-key", EMAIL_FROM: "noreply@verify.example" } as Env;
    let clients = 0;
    const ask = async () => {
      const from = `2001:db8:${(0xa000 + (clients += 1)).toString(16)}::${clients}`;
      // Every other request names the mailbox with a tag of its own and in capitals.
      const to = clients % 2 === 0 ? email.replace("@", `+${clients}@`).toUpperCase() : email;
      used.push(limitKey(PUBLIC_LIMITS.magicLinkClient, clientKey(from, 48)), magicLinkLimitKey(to, clientKey(from, 48)));
      const res = await callJson("/v1/auth/magic-link", { env: deployed, headers: { "CF-Connecting-IP": from }, body: { email: to } });
      return { status: res.status, body: res.body, type: res.headers.get("Content-Type") };
    };
    const mailed = async () => ((await (await fetch(`${env.FAKES_URL}/inbox/${box}`)).json()) as unknown[]).length;
    const answers = [];
    for (let i = 0; i < hourly.limit + 3; i += 1) answers.push(await ask());
    // Every answer the same, sent or not: nothing tells the asker the cap was reached.
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    expect(answers[0]).toEqual({ status: 200, body: { sent: true }, type: expect.stringMatching(/^application\/json/) });
    // Sent after the answers: wait for the hour's cap to be mailed (never more: the counter is atomic).
    await eventually(async () => (await mailed()) >= hourly.limit, "the hour's sign-in emails");
    expect(await mailed()).toBe(hourly.limit);
    // Nor is a link stored that nobody was sent.
    expect(await db().select().from(magicLinks).where(like(magicLinks.email, `${email.split("@")[0]}%`))).toHaveLength(hourly.limit);

    // The next hour, the day's cap: as if the address had been sent all but one of today's emails.
    await endWindow(limitKey(hourly, email));
    await rateLimiterObject(env, limitKey(daily, email)).take(daily.limit - hourly.limit - 1, daily.limit, daily.windowMs);
    for (let i = 0; i < 3; i += 1) expect(await ask()).toEqual(answers[0]);
    await eventually(async () => (await mailed()) > hourly.limit, "the day's last sign-in email");
    expect(await mailed()).toBe(hourly.limit + 1);
  });

  it("GET and POST /v1/auth/magic-link/{token}: 60 per 10 minutes per client, the page and its button together", async () => {
    await awayFromWindowEdge(PUBLIC_LIMITS.magicLinkPage.windowMs);
    const client = ip();
    const path = `/v1/auth/magic-link/mlk_${"0".repeat(43)}`;
    await spend(PUBLIC_LIMITS.magicLinkPage, client, 2);
    const page = await call(path, { headers: { "CF-Connecting-IP": client } });
    expect(page.status).toBe(401);
    await page.text();
    const button = await call(path, { method: "POST", redirect: "manual", headers: { "CF-Connecting-IP": client } });
    expect(button.status).toBe(401);
    await button.text();
    expectLimited(await callJson(path, { headers: { "CF-Connecting-IP": client } }), PUBLIC_LIMITS.magicLinkPage);
    expectLimited(await callJson(path, { method: "POST", headers: { "CF-Connecting-IP": client } }), PUBLIC_LIMITS.magicLinkPage);
    const other = await call(path, { headers: { "CF-Connecting-IP": ip() } });
    expect(other.status).toBe(401);
    await other.text();
  });
});

describe("single sign-on", () => {
  it("GET /v1/auth/{provider}/login and /callback: 60 per 10 minutes per client, together", async () => {
    await awayFromWindowEdge(PUBLIC_LIMITS.signInFlowClient.windowMs);
    const client = ip();
    await spend(PUBLIC_LIMITS.signInFlowClient, client, 2);
    const login = await call("/v1/auth/dev/login", { redirect: "manual", headers: { "CF-Connecting-IP": client } });
    expect(login.status).toBe(302);
    await login.text();
    expect((await callJson("/v1/auth/dev/callback", { headers: { "CF-Connecting-IP": client } })).status).toBe(401);
    expectLimited(await callJson("/v1/auth/dev/login", { redirect: "manual", headers: { "CF-Connecting-IP": client } }), PUBLIC_LIMITS.signInFlowClient);
    expectLimited(await callJson("/v1/auth/dev/callback", { headers: { "CF-Connecting-IP": client } }), PUBLIC_LIMITS.signInFlowClient);
    const other = await call("/v1/auth/dev/login", { redirect: "manual", headers: { "CF-Connecting-IP": ip() } });
    expect(other.status).toBe(302);
    await other.text();
  });
});

describe("one-time codes", () => {
  it("POST /v1/auth/otp/verify: 60 per 10 minutes per client, whatever the code", async () => {
    await awayFromWindowEdge(PUBLIC_LIMITS.otpVerifyClient.windowMs);
    const client = ip();
    const guess = (from: string) => callJson("/v1/auth/otp/verify", { headers: { "CF-Connecting-IP": from }, body: { otp_id: "walotp_01JD2Y4N9M6Q8R0S2T4V6W8X0Z", code: "123456" } });
    await spend(PUBLIC_LIMITS.otpVerifyClient, client);
    expect((await guess(client)).status).toBe(401);
    expectLimited(await guess(client), PUBLIC_LIMITS.otpVerifyClient);
    expect((await guess(ip())).status).toBe(401);
  });
});
