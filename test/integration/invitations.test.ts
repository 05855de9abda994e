import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { auditLog, invitations, outboundMessages, tenants, users } from "../../src/db/schema";
import { acceptInvitation, invitationAddressLimitKeys, INVITATION_TTL_MS } from "../../src/domain/accounts/invitations";
import { ADDRESS_EMAIL_LIMITS, INVITATION_EMAIL_LIMITS, limitKey, PUBLIC_LIMITS } from "../../src/domain/public-limits";
import { rateLimiterObject } from "../../src/durable-objects/rate-limiter-client";
import { call, callJson, db, seedTenant } from "../helpers/api";
import { nextSignInLink, signInMails } from "../helpers/sign-in-mail";
import { testClientKey } from "../helpers/client-address";
import { proveDomain } from "../helpers/dns";
import { awayFromWindowEdge, endWindow } from "../helpers/limits";
import { dashboard, setCookie, signIn } from "../helpers/session";

const client = { ip: "203.0.113.9", userAgent: "test" };
let counter = 0;
const address = () => `invitee-${Date.now().toString(36)}-${(counter += 1)}@example.com`;

/** The invitation link of the newest email to `to` (a path), as the invitee's mail client shows it. */
async function invitationLinkTo(to: string): Promise<string> {
  const rows = await db().select().from(outboundMessages).where(eq(outboundMessages.recipient, to));
  const body = rows.sort((a, b) => a.id.localeCompare(b.id)).at(-1)?.body ?? "";
  const match = /http:\/\/localhost:8787(\/v1\/auth\/invitation\/ivt_[0-9A-Za-z]+)/.exec(body);
  if (!match) throw new Error(`no invitation link in ${JSON.stringify(body)}`);
  return match[1]!;
}

async function invite(cookie: string, email: string, role = "reviewer") {
  return callJson("/v1/invitations", { headers: dashboard(cookie), body: { email, role } });
}

/** The page's button, posted by a non-browser client (what Chromium sends is test/browser's to show). */
async function accept(path: string) {
  const res = await call(path, { method: "POST", redirect: "manual" });
  const text = await res.text();
  return { res, text, cookie: setCookie(res, "svc_session")?.pair };
}

/** An ordinary sign-in by email link (the link's page and its button), as that person would; the session's cookie. */
async function signInByEmailLink(email: string): Promise<string> {
  const sentBefore = (await signInMails(email)).length;
  expect((await callJson("/v1/auth/magic-link", { body: { email } })).status).toBe(200);
  const path = await nextSignInLink(email, sentBefore);
  const res = await call(path, { method: "POST", redirect: "manual" });
  await res.text();
  expect(res.status).toBe(303);
  return setCookie(res, "svc_session")!.pair;
}

afterEach(async () => {
  await endWindow(limitKey(PUBLIC_LIMITS.invitationClient, testClientKey()));
  await endWindow(limitKey(PUBLIC_LIMITS.magicLinkClient, testClientKey(48)));
  await endWindow(limitKey(PUBLIC_LIMITS.magicLinkPage, testClientKey()));
});

describe("invitations", () => {
  it("emails a single-use link whose page spends nothing and whose button signs the new person in as a member", async () => {
    const t = await seedTenant("Claims Team");
    const admin = await signIn(t.id, "admin");
    const email = address();
    const created = await invite(admin.cookie, email.toUpperCase());
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^inv_/), email, role: "reviewer", status: "pending", invited_by: admin.userId, send_count: 1 });
    expect(Date.parse(created.body.expires_at) - Date.parse(created.body.created_at)).toBe(INVITATION_TTL_MS);
    const [mail] = await db().select().from(outboundMessages).where(eq(outboundMessages.recipient, email));
    // Fixed wording naming the tenant by the inviter's address (it proved no domain): never its display name.
    expect(mail!.subject).toBe(`${admin.email} invited you to the verification dashboard`);
    expect(mail!.body).toContain(`${admin.email} invited you to join their team on the verification dashboard, as a reviewer.`);
    expect(`${mail!.subject}${mail!.body}`).not.toContain("Claims Team");
    const stored = await db().select().from(invitations).where(eq(invitations.id, created.body.id)).get();
    const path = await invitationLinkTo(email);
    expect(path).toMatch(/^\/v1\/auth\/invitation\/ivt_[0-9A-Za-z]{43}$/);
    expect(stored!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored!.tokenHash).not.toContain(path.split("/").at(-1)!);

    const page = await call(path);
    expect(page.status).toBe(200);
    expect(page.headers.get("Referrer-Policy")).toBe("no-referrer");
    const html = await page.text();
    expect(html).toContain(`<form method="post" action="${path}">`);
    expect(html).toContain(`${admin.email} invited you to join their team as reviewer, signing in as ${email}`);
    expect(html).not.toContain("Claims Team");
    expect((await call(path)).status).toBe(200); // a scanner's GET spends nothing

    const { res, cookie } = await accept(path);
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/console");
    const me = await callJson("/v1/me", { headers: { Cookie: cookie! } });
    expect(me.body).toMatchObject({ user: { email }, tenant: { id: t.id }, role: "reviewer" });
    // A new person gets no tenant of their own: only the one they were invited to.
    expect(me.body.memberships).toHaveLength(1);

    const again = await accept(path);
    expect(again.res.status).toBe(401);
    expect(again.text).toMatch(/This invitation no longer works/);
    expect(again.cookie).toBeUndefined();
    expect((await call(path)).status).toBe(401);
    // A JSON client gets the standard error body; a browser the page.
    for (const method of ["GET", "POST"]) {
      const json = await callJson(path, { method, headers: { Accept: "application/json" } });
      expect({ method, status: json.status, type: json.headers.get("Content-Type") }).toEqual({ method, status: 401, type: expect.stringMatching(/^application\/json/) });
      expect(json.body).toEqual({ error: { code: "unauthorized", message: expect.stringMatching(/^This invitation no longer works/) } });
      const page = await call(path, { method, headers: { Accept: "text/html,application/xhtml+xml,application/json;q=0.9,*/*;q=0.8" } });
      expect({ method, status: page.status, type: page.headers.get("Content-Type") }).toEqual({ method, status: 401, type: expect.stringMatching(/^text\/html/) });
      await page.text();
    }
    // Accepted: a member now, no longer an open invitation.
    expect((await callJson("/v1/invitations", { headers: dashboard(admin.cookie) })).body.items).toEqual([]);
    expect((await invite(admin.cookie, email)).status).toBe(409);
  });

  it("an invitation to an existing account adds the membership only after that person signs in as usual, and never moves their default tenant", async () => {
    const home = await seedTenant("Home");
    const team = await seedTenant("Team");
    const person = await signIn(home.id, "owner");
    const owner = await signIn(team.id, "owner");
    const invited = await invite(owner.cookie, person.email, "admin");
    const path = await invitationLinkTo(person.email);
    const page = await (await call(path)).text();
    expect(page).toContain(`${person.email} already has an account: confirm here, then sign in as you usually do`);

    // Whoever holds the link confirms; that signs nobody in and adds nothing yet.
    const { res, text, cookie } = await accept(path);
    expect(res.status).toBe(200);
    expect(cookie).toBeUndefined();
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(text).toContain("Sign in as you usually do");
    expect(text).toContain('action="/console/sign-in"');
    const before = (await callJson("/v1/me", { headers: { Cookie: person.cookie } })).body;
    expect(before.memberships.map((m: { tenant: { id: string } }) => m.tenant.id)).toEqual([home.id]);
    const listed = (await callJson("/v1/invitations", { headers: dashboard(owner.cookie) })).body.items;
    expect(listed).toMatchObject([{ id: invited.body.id, status: "awaiting_sign_in", claimed_at: expect.any(String) }]);
    expect(await db().select().from(auditLog).where(eq(auditLog.tenantId, team.id)).then((rows) => rows.filter((r) => r.action === "member.joined"))).toEqual([]);
    // The link is spent; resending is refused (they followed it), and inviting them again is too.
    expect((await accept(path)).res.status).toBe(401);
    expect((await call(path)).status).toBe(401);
    expect((await callJson(`/v1/invitations/${invited.body.id}/resend`, { method: "POST", headers: dashboard(owner.cookie) })).status).toBe(409);
    expect((await invite(owner.cookie, person.email)).status).toBe(409);

    // Their next ordinary sign-in (an email link here) adds the membership, and lands where it always does.
    const signedIn = await signInByEmailLink(person.email);
    const me = (await callJson("/v1/me", { headers: { Cookie: signedIn } })).body;
    expect(me).toMatchObject({ user: { id: person.userId }, tenant: { id: home.id }, role: "owner" });
    expect(me.memberships.map((m: { tenant: { id: string }; role: string }) => [m.tenant.id, m.role])).toEqual([
      [home.id, "owner"],
      [team.id, "admin"],
    ]);
    expect((await db().select().from(users).where(eq(users.id, person.userId)).get())!.defaultTenantId).toBe(home.id);
    const joined = (await db().select().from(auditLog).where(eq(auditLog.tenantId, team.id))).filter((r) => r.action === "member.joined");
    expect(joined).toMatchObject([{ actorId: person.userId, details: { role: "admin", via: "invitation", invitation_id: invited.body.id } }]);
    expect((await callJson("/v1/invitations", { headers: dashboard(owner.cookie) })).body.items).toEqual([]);
    // Signing in again adds nothing twice.
    await signInByEmailLink(person.email);
    expect((await db().select().from(auditLog).where(eq(auditLog.tenantId, team.id))).filter((r) => r.action === "member.joined")).toHaveLength(1);
  });

  it("confirmed from a browser already signed in as that account, it joins at once: no new session, the same landing tenant", async () => {
    const home = await seedTenant("Home");
    const team = await seedTenant("Team");
    const person = await signIn(home.id, "owner");
    const owner = await signIn(team.id, "owner");
    await invite(owner.cookie, person.email, "reviewer");
    const res = await call(await invitationLinkTo(person.email), { method: "POST", redirect: "manual", headers: { Cookie: person.cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(await res.text()).toContain("The team is added to your account");
    const me = (await callJson("/v1/me", { headers: { Cookie: person.cookie } })).body;
    expect(me.tenant.id).toBe(home.id);
    expect(me.memberships.map((m: { tenant: { id: string }; role: string }) => [m.tenant.id, m.role])).toEqual([
      [home.id, "owner"],
      [team.id, "reviewer"],
    ]);
    // Another account's session in the browser joins nobody: it waits for the invitee's own sign-in.
    const stranger = await signIn(home.id, "viewer");
    const other = address();
    const otherUser = await signIn((await seedTenant("Elsewhere")).id, "owner");
    await db().update(users).set({ email: other }).where(eq(users.id, otherUser.userId));
    await invite(owner.cookie, other, "viewer");
    const refused = await call(await invitationLinkTo(other), { method: "POST", redirect: "manual", headers: { Cookie: stranger.cookie } });
    expect(await refused.text()).toContain("Sign in as you usually do");
    expect((await callJson("/v1/me", { headers: { Cookie: stranger.cookie } })).body.memberships).toHaveLength(1);
  });

  it("a confirmed invitation revoked before the person signs in adds nothing", async () => {
    const home = await seedTenant("Home");
    const team = await seedTenant("Team");
    const person = await signIn(home.id, "owner");
    const owner = await signIn(team.id, "owner");
    const invited = await invite(owner.cookie, person.email, "viewer");
    expect((await accept(await invitationLinkTo(person.email))).res.status).toBe(200);
    const revoked = await callJson(`/v1/invitations/${invited.body.id}`, { method: "DELETE", headers: dashboard(owner.cookie) });
    expect(revoked.body.status).toBe("revoked");
    const me = (await callJson("/v1/me", { headers: { Cookie: await signInByEmailLink(person.email) } })).body;
    expect(me.memberships.map((m: { tenant: { id: string } }) => m.tenant.id)).toEqual([home.id]);
  });

  it("is single use under concurrency: of two clicks at once, one signs in", async () => {
    const t = await seedTenant();
    const admin = await signIn(t.id, "admin");
    const email = address();
    await invite(admin.cookie, email);
    const path = await invitationLinkTo(email);
    const both = await Promise.all([accept(path), accept(path)]);
    expect(both.map((b) => b.res.status).sort()).toEqual([303, 401]);
    const joined = await db().select().from(auditLog).where(eq(auditLog.action, "member.joined"));
    expect(joined.filter((e) => e.tenantId === t.id)).toHaveLength(1);
  });

  it("works for 7 days, not a millisecond more", async () => {
    const t = await seedTenant();
    const admin = await signIn(t.id, "admin");
    const email = address();
    const created = await invite(admin.cookie, email);
    const token = (await invitationLinkTo(email)).split("/").at(-1)!;
    const createdAt = Date.parse(created.body.created_at);
    expect(await acceptInvitation(db(), token, client, createdAt + INVITATION_TTL_MS)).toBeNull();
    expect(await acceptInvitation(db(), token, client, createdAt + INVITATION_TTL_MS - 1)).toMatchObject({ kind: "signed_in", signedIn: { tenantId: t.id, role: "reviewer" } });
  });

  it("an expired invitation shows as expired, its link is dead, and inviting the address again replaces it", async () => {
    const t = await seedTenant();
    const admin = await signIn(t.id, "admin");
    const email = address();
    const first = await invite(admin.cookie, email);
    const oldPath = await invitationLinkTo(email);
    // Seven days pass (the row's own clock: the only way to age it from outside).
    await db().update(invitations).set({ expiresAt: Date.now() - 1 }).where(eq(invitations.id, first.body.id));
    const listed = await callJson("/v1/invitations", { headers: dashboard(admin.cookie) });
    expect(listed.body.items).toMatchObject([{ id: first.body.id, status: "expired" }]);
    expect((await call(oldPath)).status).toBe(401);
    expect((await accept(oldPath)).res.status).toBe(401);
    const second = await invite(admin.cookie, email);
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
    expect((await callJson("/v1/invitations", { headers: dashboard(admin.cookie) })).body.items.map((i: { id: string }) => i.id)).toEqual([second.body.id]);
  });

  it("one invitation is emailed at most 5 times an hour: the first send and 4 resends", async () => {
    const t = await seedTenant();
    const admin = await signIn(t.id, "admin");
    const email = address();
    const created = await invite(admin.cookie, email);
    const resend = () => callJson(`/v1/invitations/${created.body.id}/resend`, { method: "POST", headers: dashboard(admin.cookie) });
    for (let i = 0; i < 4; i += 1) expect((await resend()).status).toBe(200);
    const refused = await resend();
    expect(refused.status).toBe(429);
    expect(refused.body.error).toEqual({ code: "too_many_requests", message: INVITATION_EMAIL_LIMITS.perInvitation.message });
    expect((await db().select().from(outboundMessages).where(eq(outboundMessages.recipient, email))).length).toBe(5);
  });

  it("resend gives a new link (the old one stops working) for 7 more days; revoke kills it; both answer the invitation", async () => {
    const t = await seedTenant();
    const admin = await signIn(t.id, "admin");
    const email = address();
    const created = await invite(admin.cookie, email);
    const firstPath = await invitationLinkTo(email);
    const resent = await callJson(`/v1/invitations/${created.body.id}/resend`, { method: "POST", headers: dashboard(admin.cookie) });
    expect(resent.status).toBe(200);
    expect(resent.body).toMatchObject({ id: created.body.id, status: "pending", send_count: 2 });
    expect(Date.parse(resent.body.expires_at)).toBeGreaterThanOrEqual(Date.parse(created.body.expires_at));
    const secondPath = await invitationLinkTo(email);
    expect(secondPath).not.toBe(firstPath);
    expect((await call(firstPath)).status).toBe(401);
    expect((await call(secondPath)).status).toBe(200);

    const revoked = await callJson(`/v1/invitations/${created.body.id}`, { method: "DELETE", headers: dashboard(admin.cookie) });
    expect(revoked.body).toMatchObject({ id: created.body.id, status: "revoked", revoked_at: expect.any(String) });
    expect((await accept(secondPath)).res.status).toBe(401);
    expect((await callJson(`/v1/invitations/${created.body.id}`, { method: "DELETE", headers: dashboard(admin.cookie) })).body.status).toBe("revoked");
    const resendRevoked = await callJson(`/v1/invitations/${created.body.id}/resend`, { method: "POST", headers: dashboard(admin.cookie) });
    expect(resendRevoked.status).toBe(409);
    expect(resendRevoked.body.error.code).toBe("invalid_state");
    // Another tenant's invitation, or none: 404.
    const stranger = await signIn((await seedTenant("Other")).id, "owner");
    expect((await callJson(`/v1/invitations/${created.body.id}`, { method: "DELETE", headers: dashboard(stranger.cookie) })).status).toBe(404);
    expect((await callJson("/v1/invitations/inv_01JD2Y4N9M6Q8R0S2T4V6W8X0Z/resend", { method: "POST", headers: dashboard(admin.cookie) })).status).toBe(404);
  });

  it("refuses what the inviter may not grant, addresses already in, a second pending invitation, and bad input", async () => {
    const t = await seedTenant();
    const owner = await signIn(t.id, "owner");
    const admin = await signIn(t.id, "admin");
    const ownerInvite = await invite(admin.cookie, address(), "owner");
    expect(ownerInvite.status).toBe(403);
    expect(ownerInvite.body.error.message).toMatch(/Only an owner/);
    expect((await invite(owner.cookie, address(), "owner")).status).toBe(201);
    expect((await invite(owner.cookie, admin.email)).status).toBe(409);
    const email = address();
    expect((await invite(admin.cookie, email)).status).toBe(201);
    const twice = await invite(admin.cookie, email);
    expect(twice.status).toBe(409);
    expect(twice.body.error.message).toMatch(/pending: resend or revoke it/);
    for (const body of [{ email: "not-an-address", role: "viewer" }, { email: address(), role: "boss" }, { email: address() }, { email: address(), role: "viewer", extra: 1 }]) {
      const res = await callJson("/v1/invitations", { headers: dashboard(owner.cookie), body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
  });

  it("emails carry no text the tenant typed: a display name built to phish never reaches the invitee; a verified domain names the tenant", async () => {
    const t = await seedTenant("Allianz SE Security: your account is locked, sign in at https://allianz-verify.example/unlock");
    const admin = await signIn(t.id, "admin");
    const email = address();
    expect((await invite(admin.cookie, email, "viewer")).status).toBe(201);
    const [plain] = await db().select().from(outboundMessages).where(eq(outboundMessages.recipient, email));
    for (const text of [plain!.subject ?? "", plain!.body]) {
      expect(text).not.toMatch(/Allianz|allianz-verify|locked|unlock/);
    }
    expect(plain!.body).toContain(`${admin.email} invited you to join their team`);
    const page = await (await call(await invitationLinkTo(email))).text();
    expect(page).not.toMatch(/Allianz|allianz-verify/);

    // Once the tenant proved a domain, it is named by that domain (its display name still nowhere).
    const domain = await proveDomain(admin.cookie);
    const second = address();
    expect((await invite(admin.cookie, second, "viewer")).status).toBe(201);
    const [named] = await db().select().from(outboundMessages).where(eq(outboundMessages.recipient, second));
    expect(named!.subject).toBe(`Join the team of ${domain} on the verification dashboard`);
    expect(named!.body).toContain(`${admin.email} invited you to join the team of ${domain} (a domain it proved it controls) on the verification dashboard, as a viewer.`);
    expect(`${named!.subject}${named!.body}`).not.toMatch(/Allianz|allianz-verify/);
    expect(await (await call(await invitationLinkTo(second))).text()).toContain(`join the team of ${domain}`);
  });

  it("a tenant younger than a day may send 20 invitation emails a day; an older one 250 a day (with 100 an hour): 429 with Retry-After beyond", async () => {
    const young = await seedTenant();
    const admin = await signIn(young.id, "admin");
    const keys = [limitKey(INVITATION_EMAIL_LIMITS.newTenantDaily, young.id), limitKey(INVITATION_EMAIL_LIMITS.perTenantDaily, young.id), limitKey(INVITATION_EMAIL_LIMITS.perTenant, young.id)];
    try {
      await awayFromWindowEdge(24 * 60 * 60 * 1000);
      for (let i = 0; i < INVITATION_EMAIL_LIMITS.newTenantDaily.limit; i += 1) expect((await invite(admin.cookie, address())).status).toBe(201);
      const refused = await invite(admin.cookie, address());
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({ code: "too_many_requests", message: expect.stringMatching(/less than a day old/) });
      const retryAfter = Number(refused.headers.get("Retry-After"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(24 * 60 * 60);
      // A resend sends an email too: refused alike.
      const open = (await callJson("/v1/invitations", { headers: dashboard(admin.cookie) })).body.items[0];
      expect((await callJson(`/v1/invitations/${open.id}/resend`, { method: "POST", headers: dashboard(admin.cookie) })).status).toBe(429);

      // A day on (the tenant row's own clock), the young tenant's cap no longer applies; the daily one does.
      await db().update(tenants).set({ createdAt: Date.now() - 24 * 60 * 60 * 1000 - 1 }).where(eq(tenants.id, young.id));
      expect((await invite(admin.cookie, address())).status).toBe(201);
      // As if it had sent the rest of today's allowance already (the same counter, in its Durable Object).
      const sentToday = INVITATION_EMAIL_LIMITS.newTenantDaily.limit + 1;
      await rateLimiterObject(env, keys[1]!).take(INVITATION_EMAIL_LIMITS.perTenantDaily.limit - sentToday - 1, INVITATION_EMAIL_LIMITS.perTenantDaily.limit, INVITATION_EMAIL_LIMITS.perTenantDaily.windowMs);
      expect((await invite(admin.cookie, address())).status).toBe(201);
      const daily = await invite(admin.cookie, address());
      expect(daily.status).toBe(429);
      expect(daily.body.error.message).toMatch(/per day/);
      expect(Number(daily.headers.get("Retry-After"))).toBeGreaterThan(0);
    } finally {
      for (const key of keys) await endWindow(key);
    }
  });

  it("one address gets at most 10 invitation emails an hour and 20 a day, whichever tenants send them: 429 beyond, nothing written", async () => {
    const [hourly, daily] = [ADDRESS_EMAIL_LIMITS.invitationHourly, ADDRESS_EMAIL_LIMITS.invitationDaily];
    const email = address();
    const keys = invitationAddressLimitKeys(email);
    const tenantsUsed: string[] = [];
    const admins = async () => {
      const t = await seedTenant();
      tenantsUsed.push(t.id);
      return { ...(await signIn(t.id, "admin")), tenantId: t.id };
    };
    const mails = async () => (await db().select().from(outboundMessages).where(eq(outboundMessages.recipient, email))).length;
    try {
      await awayFromWindowEdge(hourly.windowMs);
      await awayFromWindowEdge(daily.windowMs);
      // Two tenants: an invitation and four resends each (each one's own cap is 5 sends an hour).
      for (const admin of [await admins(), await admins()]) {
        const created = await invite(admin.cookie, email);
        expect(created.status).toBe(201);
        keys.push(limitKey(INVITATION_EMAIL_LIMITS.perInvitation, created.body.id));
        for (let i = 0; i < 4; i += 1) expect((await callJson(`/v1/invitations/${created.body.id}/resend`, { method: "POST", headers: dashboard(admin.cookie) })).status).toBe(200);
      }
      expect(await mails()).toBe(hourly.limit);
      const third = await admins();
      const refused = await invite(third.cookie, email);
      expect(refused.status).toBe(429);
      expect(refused.body.error).toEqual({ code: "too_many_requests", message: hourly.message });
      expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
      expect(Number(refused.headers.get("Retry-After"))).toBeLessThanOrEqual(hourly.windowMs / 1000);
      expect(await db().select().from(invitations).where(eq(invitations.tenantId, third.tenantId))).toHaveLength(0);
      expect(await mails()).toBe(hourly.limit);
      // Another address is not held back.
      expect((await invite(third.cookie, address())).status).toBe(201);

      // The next hour, the day's cap: as if the address had been sent all but one of today's.
      await endWindow(keys[0]!);
      await rateLimiterObject(env, keys[1]!).take(daily.limit - hourly.limit - 1, daily.limit, daily.windowMs);
      expect((await invite(third.cookie, email)).status).toBe(201);
      const fourth = await admins();
      const refusedDaily = await invite(fourth.cookie, email);
      expect(refusedDaily.status).toBe(429);
      expect(refusedDaily.body.error).toEqual({ code: "too_many_requests", message: daily.message });
      expect(await mails()).toBe(hourly.limit + 1);
    } finally {
      for (const key of keys) await endWindow(key);
      for (const id of tenantsUsed) for (const rule of Object.values(INVITATION_EMAIL_LIMITS)) await endWindow(limitKey(rule, id));
    }
  });

  it("rate-limits the invitee's door per client network (the page and its button)", async () => {
    const path = "/v1/auth/invitation/ivt_0000000000000000000000000000000000000000000";
    for (let i = 0; i < PUBLIC_LIMITS.invitationClient.limit; i += 1) {
      const res = await call(path, i % 2 ? { method: "POST", redirect: "manual" } : {});
      expect(res.status).toBe(401);
      await res.text();
    }
    const limited = await callJson(path);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
  });
});
