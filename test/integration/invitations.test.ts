import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { auditLog, invitations, outboundMessages } from "../../src/db/schema";
import { acceptInvitation, INVITATION_TTL_MS } from "../../src/domain/accounts/invitations";
import { limitKey, PUBLIC_LIMITS } from "../../src/domain/public-limits";
import { call, callJson, db, seedTenant } from "../helpers/api";
import { endWindow } from "../helpers/limits";
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

afterEach(async () => {
  await endWindow(limitKey(PUBLIC_LIMITS.invitationClient, "unknown"));
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
    expect(mail!.subject).toMatch(/^Join Claims Team \d+ on the verification dashboard$/);
    expect(mail!.body).toContain(`${admin.email} invited you to join Claims Team`);
    expect(mail!.body).toContain("as a reviewer");
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
    expect(html).toContain(`as reviewer, and signing in as ${email}`);
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

  it("an existing user joins and keeps their other memberships (their own tenant included)", async () => {
    const home = await seedTenant("Home");
    const team = await seedTenant("Team");
    const person = await signIn(home.id, "owner");
    const owner = await signIn(team.id, "owner");
    await invite(owner.cookie, person.email, "admin");
    const { cookie } = await accept(await invitationLinkTo(person.email));
    const me = (await callJson("/v1/me", { headers: { Cookie: cookie! } })).body;
    expect(me).toMatchObject({ user: { id: person.userId }, tenant: { id: team.id }, role: "admin" });
    expect(me.memberships.map((m: { tenant: { id: string }; role: string }) => [m.tenant.id, m.role])).toEqual([
      [home.id, "owner"],
      [team.id, "admin"],
    ]);
    expect((await callJson("/v1/me", { headers: { Cookie: person.cookie } })).body.tenant.id).toBe(home.id);
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
    expect(await acceptInvitation(db(), token, client, createdAt + INVITATION_TTL_MS - 1)).toMatchObject({ tenantId: t.id, role: "reviewer" });
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
