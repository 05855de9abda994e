import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { consumeMagicLink, MAGIC_LINK_TTL_MS, magicLinkLimitKey, requestMagicLink, signInAddressLimitKeys } from "../../src/domain/accounts/magic-links";
import { limitKey, PUBLIC_LIMITS } from "../../src/domain/public-limits";
import { issueOtp, OTP_TTL_MS, verifyOtp } from "../../src/domain/accounts/otp";
import { registerPhone } from "../../src/domain/accounts/phones";
import { magicLinks, otpCodes } from "../../src/db/schema";
import { call, callJson, db, eventually, seedTenant } from "../helpers/api";
import { botCall } from "../helpers/bot";
import { awayFromWindowEdge, endWindow } from "../helpers/limits";
import { setCookie } from "../helpers/session";
import { testClientKey } from "../helpers/client-address";
import { nextSignInLink } from "../helpers/sign-in-mail";

let n = 0;
const phone = () => `+4477009${String(Date.now() % 100000).padStart(5, "0")}${(n += 1)}`.slice(0, 16);
/** A phone an operator of `tenantId` registered (codes are issued only for those). */
async function registered(tenantId: string, number = phone()): Promise<string> {
  await registerPhone(db(), { tenantId, phone: number, registeredBy: "usr_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" });
  return number;
}
const email = () => `ops${Date.now().toString(36)}${(n += 1)}@example.test`;

describe("messaging one-time code (walotp_)", () => {
  it("signs in with the right code once, into the code's tenant", async () => {
    const t = await seedTenant();
    const number = await registered(t.id);
    const signedAt = Math.floor(Date.now() / 1000);
    const issued = await botCall("/v1/bot/otp", { tenant_id: t.id, phone: number }, { timestamp: signedAt });
    expect(issued.status).toBe(201);
    expect(issued.body.otp_id).toMatch(/^walotp_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(issued.body.code).toMatch(/^\d{6}$/);
    const expiresIn = Date.parse(issued.body.expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(OTP_TTL_MS - 60_000);
    expect(expiresIn).toBeLessThanOrEqual(OTP_TTL_MS);

    // Hashed at rest.
    const row = await db().select().from(otpCodes).where(eq(otpCodes.id, issued.body.otp_id)).get();
    expect(row!.codeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row!.codeHash).not.toContain(issued.body.code);

    const res = await call("/v1/auth/otp/verify", { body: { otp_id: issued.body.otp_id, code: issued.body.code } });
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(body.user.phone).toBe(number);
    expect(body.tenant.id).toBe(t.id);
    const me = await callJson("/v1/me", { headers: { Cookie: setCookie(res, "svc_session")!.pair } });
    expect(me.body.user.id).toBe(body.user.id);

    const again = await callJson("/v1/auth/otp/verify", { body: { otp_id: issued.body.otp_id, code: issued.body.code } });
    expect(again.status).toBe(401);

    // The same number signs in to the same user next time. (Another second: the identical request
    // signed in the same second would be the same signature, refused as a replay.)
    const second = await botCall("/v1/bot/otp", { tenant_id: t.id, phone: number }, { timestamp: signedAt - 1 });
    expect(second.status).toBe(201);
    const res2 = await callJson("/v1/auth/otp/verify", { body: { otp_id: second.body.otp_id, code: second.body.code } });
    expect(res2.body.user.id).toBe(body.user.id);
  });

  it("locks after 5 wrong attempts, even against the right code, and even when guessed concurrently", async () => {
    const t = await seedTenant();
    const issued = await botCall("/v1/bot/otp", { tenant_id: t.id, phone: await registered(t.id) });
    const wrong = issued.body.code === "000000" ? "111111" : "000000";
    for (let i = 1; i <= 5; i += 1) {
      const res = await callJson("/v1/auth/otp/verify", { body: { otp_id: issued.body.otp_id, code: wrong } });
      expect(res.status).toBe(401);
      expect(res.body.error.message).toBe(i < 5 ? "Wrong code." : "Too many wrong attempts: request a new code.");
    }
    const right = await callJson("/v1/auth/otp/verify", { body: { otp_id: issued.body.otp_id, code: issued.body.code } });
    expect(right.status).toBe(401);
    expect(right.body.error.message).toMatch(/Too many wrong attempts/);

    const burst = await issueOtp(env, db(), { tenantId: t.id, phone: await registered(t.id) });
    const guesses = Array.from({ length: 12 }, (_, i) => String((Number(burst.code) + 1 + i) % 1_000_000).padStart(6, "0"));
    const outcomes = await Promise.all(guesses.map((code) => verifyOtp(env, db(), { otpId: burst.id, code })));
    expect(outcomes.every((o) => !o.ok)).toBe(true);
    const stored = await db().select().from(otpCodes).where(eq(otpCodes.id, burst.id)).get();
    expect(stored!.attempts).toBe(5);
    expect((await verifyOtp(env, db(), { otpId: burst.id, code: burst.code })).ok).toBe(false);
  });

  it("expires after 10 minutes", async () => {
    const t = await seedTenant();
    const issuedAt = Date.now();
    const code = await issueOtp(env, db(), { tenantId: t.id, phone: await registered(t.id) }, issuedAt);
    expect(await verifyOtp(env, db(), { otpId: code.id, code: code.code }, issuedAt + OTP_TTL_MS)).toEqual({ ok: false, reason: "expired" });
    expect((await verifyOtp(env, db(), { otpId: code.id, code: code.code }, issuedAt + OTP_TTL_MS - 1)).ok).toBe(true);
  });

  it("a number registered by two tenants signs in to each as one user with two memberships (a reviewer where new); bad input", async () => {
    const a = await seedTenant();
    const b = await seedTenant();
    const number = await registered(a.id);
    const issued = await botCall("/v1/bot/otp", { tenant_id: a.id, phone: number });
    const inA = await callJson("/v1/auth/otp/verify", { body: { otp_id: issued.body.otp_id, code: issued.body.code } });
    expect(inA.status).toBe(200);
    expect(inA.body).toMatchObject({ tenant: { id: a.id }, role: "reviewer" });
    // Registered in b too: b's code signs the same person in to b, keeping a.
    await registered(b.id, number);
    const elsewhere = await botCall("/v1/bot/otp", { tenant_id: b.id, phone: number });
    expect(elsewhere.status).toBe(201);
    const inB = await callJson("/v1/auth/otp/verify", { body: { otp_id: elsewhere.body.otp_id, code: elsewhere.body.code } });
    expect(inB.body).toMatchObject({ user: { id: inA.body.user.id }, tenant: { id: b.id }, role: "reviewer" });
    expect(inB.body.memberships.map((m: { tenant: { id: string } }) => m.tenant.id).sort()).toEqual([a.id, b.id].sort());
    expect((await botCall("/v1/bot/otp", { tenant_id: a.id, phone: "0044 7700" })).status).toBe(400);
    const badCode = await callJson("/v1/auth/otp/verify", { body: { otp_id: issued.body.otp_id, code: "12345" } });
    expect(badCode.status).toBe(400);
    expect(badCode.body.error.fields).toHaveProperty("code");
    const unknown = await callJson("/v1/auth/otp/verify", { body: { otp_id: "walotp_01JD2Y4N9M6Q8R0S2T4V6W8X0Z", code: "123456" } });
    expect(unknown.status).toBe(401);
  });
});

describe("magic link (mlk_)", () => {
  it("emails a single-use link that signs in, creating the account on first use", async () => {
    const address = email();
    const sent = await callJson("/v1/auth/magic-link", { body: { email: address.toUpperCase() } });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ sent: true });
    const path = await nextSignInLink(address);
    const stored = await db().select().from(magicLinks).where(eq(magicLinks.email, address)).get();
    expect(stored!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(path).not.toContain(stored!.tokenHash);

    // Following the link shows a confirmation page; it signs nobody in and spends nothing.
    const page = await call(path, { redirect: "manual" });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(page.headers.get("Referrer-Policy")).toBe("no-referrer");
    expect(page.headers.get("Content-Security-Policy")).toContain("form-action 'self'");
    const html = await page.text();
    expect(html).toContain(`<form method="post" action="${path}">`);
    expect(html).toContain(address);
    expect(setCookie(page, "svc_session")).toBeUndefined();
    expect((await call(path, { redirect: "manual" })).status).toBe(200); // a link scanner's GET spends nothing

    // The page's button: a form POST (empty form body) signs in. (What a browser sends with it is
    // test/browser/sign-in.test.ts's to show; here a non-browser client posts it.)
    const res = await call(path, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    await res.text();
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/v1/me");
    const me = await callJson("/v1/me", { headers: { Cookie: setCookie(res, "svc_session")!.pair } });
    expect(me.body.user.email).toBe(address);
    expect(me.body.tenant.id).toMatch(/^tnt_/);

    const reused = await call(path, { method: "POST", redirect: "manual" });
    expect(reused.status).toBe(401);
    expect(reused.headers.get("content-type")).toMatch(/text\/html/);
    expect(await reused.text()).toMatch(/no longer works/);
    expect(setCookie(reused, "svc_session")).toBeUndefined();
    const spentPage = await call(path);
    expect(spentPage.status).toBe(401);
    expect(await spentPage.text()).toMatch(/no longer works/);

    // Signing in again by link lands on the same user.
    await callJson("/v1/auth/magic-link", { body: { email: address } });
    const res2 = await call(await nextSignInLink(address, 1), { method: "POST", redirect: "manual" });
    await res2.text();
    const me2 = await callJson("/v1/me", { headers: { Cookie: setCookie(res2, "svc_session")!.pair } });
    expect(me2.body.user.id).toBe(me.body.user.id);
    await endWindow(magicLinkLimitKey(address, testClientKey(48)));
    for (const key of signInAddressLimitKeys(address)) await endWindow(key);
  });

  it("expires after 15 minutes and refuses unknown tokens", async () => {
    const address = email();
    const at = Date.now();
    await requestMagicLink(env, db(), { email: address }, { now: at });
    const token = (await nextSignInLink(address)).split("/").at(-1)!;
    expect(await consumeMagicLink(db(), token, at + MAGIC_LINK_TTL_MS)).toBeNull();
    expect(await consumeMagicLink(db(), token, at + MAGIC_LINK_TTL_MS - 1)).toBe(address);
    const unknown = await call(`/v1/auth/magic-link/mlk_${"x".repeat(43)}`);
    expect(unknown.status).toBe(401);
    await unknown.text();
    // Dead (expired, used or unknown): the standard error body to a JSON client, the page to a browser.
    // A link longer than any token is dead like the rest (it once answered 400 before the page).
    for (const path of [`/v1/auth/magic-link/${token}`, `/v1/auth/magic-link/mlk_${"x".repeat(43)}`, "/v1/auth/magic-link/not-a-token", `/v1/auth/magic-link/mlk_${"x".repeat(400)}`]) {
      for (const method of ["GET", "POST"]) {
        const json = await callJson(path, { method, headers: { Accept: "application/json" } });
        expect({ path, method, status: json.status, type: json.headers.get("Content-Type") }).toEqual({ path, method, status: 401, type: expect.stringMatching(/^application\/json/) });
        expect(json.body).toEqual({ error: { code: "unauthorized", message: expect.stringMatching(/^This sign-in link no longer works/) } });
        const page = await call(path, { method, headers: { Accept: "text/html" } });
        expect({ path, method, status: page.status, type: page.headers.get("Content-Type") }).toEqual({ path, method, status: 401, type: expect.stringMatching(/^text\/html/) });
        await page.text();
      }
    }
    await endWindow(magicLinkLimitKey(address));
    for (const key of signInAddressLimitKeys(address)) await endWindow(key);
  });

  it("limits sign-in emails per address and client (429 with Retry-After): one client cannot lock the address out for another", async () => {
    await awayFromWindowEdge(15 * 60 * 1000);
    const address = email();
    const from = (ip: string) => ({ headers: { "CF-Connecting-IP": ip }, body: { email: address } });
    for (let i = 0; i < 5; i += 1) expect((await callJson("/v1/auth/magic-link", from("203.0.113.7"))).status).toBe(200);
    const limited = await callJson("/v1/auth/magic-link", from("203.0.113.7"));
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("too_many_requests");
    const retryAfter = Number(limited.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // Links are stored after the answer: wait for them, then count exactly.
    const links = async (atLeast: number) => {
      await eventually(async () => (await db().select().from(magicLinks).where(eq(magicLinks.email, address))).length >= atLeast, `${atLeast} links`);
      return (await db().select().from(magicLinks).where(eq(magicLinks.email, address))).length;
    };
    expect(await links(5)).toBe(5);
    // The address's owner, from their own network, still gets their link.
    expect((await callJson("/v1/auth/magic-link", from("198.51.100.23"))).status).toBe(200);
    expect(await links(6)).toBe(6);
    expect((await callJson("/v1/auth/magic-link", { body: { email: "not-an-email" } })).status).toBe(400);
    for (const ip of ["203.0.113.7", "198.51.100.23"]) {
      await endWindow(magicLinkLimitKey(address, ip));
      await endWindow(limitKey(PUBLIC_LIMITS.magicLinkClient, ip));
    }
    for (const key of signInAddressLimitKeys(address)) await endWindow(key);
  });
});
