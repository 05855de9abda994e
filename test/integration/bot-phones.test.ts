import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, otpCodes, tenantPhones } from "../../src/db/schema";
import { MAX_PHONES_PER_TENANT } from "../../src/domain/accounts/phones";
import { newId } from "../../src/lib/ids";
import { call, callJson, db, seedTenant } from "../helpers/api";
import { botCall } from "../helpers/bot";
import { dashboard, setCookie, signIn } from "../helpers/session";

let n = 0;
const phone = () => `+3361${String(Date.now() % 1_000_000).padStart(6, "0")}${(n += 1) % 10}`;

async function phonesOf(tenantId: string) {
  return db().select().from(tenantPhones).where(eq(tenantPhones.tenantId, tenantId));
}

describe("registered phones (POST/GET/DELETE /v1/phones)", () => {
  it("an operator registers, lists and removes the tenant's phones; another tenant sees none of them", async () => {
    const t = await seedTenant();
    const { userId, cookie } = await signIn(t.id);
    const number = phone();
    const created = await callJson("/v1/phones", { headers: dashboard(cookie), body: { phone: number, label: " Field lead " } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.stringMatching(/^phn_[0-9A-HJKMNP-TV-Z]{26}$/), phone: number, label: "Field lead", registered_by: userId, created_at: expect.any(String) });
    const second = await callJson("/v1/phones", { headers: dashboard(cookie), body: { phone: phone() } });
    expect(second.status).toBe(201);
    expect(second.body).not.toHaveProperty("label");

    const listed = await callJson("/v1/phones", { headers: { Cookie: cookie } });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((p: any) => p.id).sort()).toEqual([created.body.id, second.body.id].sort());

    const duplicate = await callJson("/v1/phones", { headers: dashboard(cookie), body: { phone: number } });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.error.fields).toHaveProperty("phone");
    // A label is printed as a name: one line (settings probe of 2026-12-04 stored "line1\nline2\u0007").
    for (const bad of [{ phone: "07700 900123" }, { phone: "+0123456789" }, {}, { phone: number, extra: 1 }, { phone: number, label: "" }, { phone: "+447700900125", label: "line1\nline2\u0007" }]) {
      const res = await callJson("/v1/phones", { headers: dashboard(cookie), body: bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }

    const other = await seedTenant();
    const outsider = await signIn(other.id);
    expect((await callJson("/v1/phones", { headers: { Cookie: outsider.cookie } })).body.items).toEqual([]);
    const foreign = await callJson(`/v1/phones/${created.body.id}`, { method: "DELETE", headers: dashboard(outsider.cookie) });
    expect(foreign.status).toBe(404);
    // The same number may be registered by another tenant too (a person may work for two).
    expect((await callJson("/v1/phones", { headers: dashboard(outsider.cookie), body: { phone: number } })).status).toBe(201);

    const removed = await callJson(`/v1/phones/${created.body.id}`, { method: "DELETE", headers: dashboard(cookie) });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual(created.body);
    expect((await callJson(`/v1/phones/${created.body.id}`, { method: "DELETE", headers: dashboard(cookie) })).status).toBe(404);
    expect((await callJson("/v1/phones/garbage", { method: "DELETE", headers: dashboard(cookie) })).status).toBe(404);
    expect((await phonesOf(t.id)).map((p) => p.id)).toEqual([second.body.id]);
  });

  it(`holds at most ${MAX_PHONES_PER_TENANT} per tenant: two racing for the last place, one gets it; the next is 409 and writes nothing`, async () => {
    const t = await seedTenant();
    const { userId, cookie } = await signIn(t.id);
    // All but one place taken (settings probe of 2026-12-04 registered 302, listed in one answer).
    const now = Date.now();
    const taken = Array.from({ length: MAX_PHONES_PER_TENANT - 1 }, (_, i) => ({
      id: newId("phone", now),
      tenantId: t.id,
      phone: `+4420${String(7_000_000 + i)}`,
      label: null,
      registeredBy: userId,
      createdAt: now - i,
    }));
    await db().batch(taken.map((row) => db().insert(tenantPhones).values(row)) as [never, ...never[]]);

    const [a, b] = await Promise.all([phone(), phone()].map((number) => callJson("/v1/phones", { headers: dashboard(cookie), body: { phone: number } })));
    expect([a!.status, b!.status].sort()).toEqual([201, 409]);
    const refused = a!.status === 409 ? a! : b!;
    expect(refused.body.error).toEqual({ code: "invalid_state", message: `A tenant registers at most ${MAX_PHONES_PER_TENANT} phones; remove one before adding another.` });
    expect(await phonesOf(t.id)).toHaveLength(MAX_PHONES_PER_TENANT);
    const audited = async () => (await db().select().from(auditLog).where(eq(auditLog.tenantId, t.id))).filter((e) => e.action === "phone.registered").length;
    expect(await audited()).toBe(1);

    const listed = await callJson("/v1/phones", { headers: { Cookie: cookie } });
    expect(listed.body.items).toHaveLength(MAX_PHONES_PER_TENANT);
    // Removing one makes room again.
    expect((await callJson(`/v1/phones/${taken[0]!.id}`, { method: "DELETE", headers: dashboard(cookie) })).status).toBe(200);
    expect((await callJson("/v1/phones", { headers: dashboard(cookie), body: { phone: phone() } })).status).toBe(201);
    expect(await audited()).toBe(2);
  });

  it("needs a dashboard session", async () => {
    const t = await seedTenant();
    const { cookie } = await signIn(t.id);
    expect((await callJson("/v1/phones")).status).toBe(401);
    expect((await callJson("/v1/phones", { key: t.key })).status).toBe(403);
    expect((await callJson("/v1/phones", { key: t.key, body: { phone: phone() } })).status).toBe(403);

    const registered = await callJson("/v1/phones", { headers: dashboard(cookie), body: { phone: phone() } });
    expect(registered.status).toBe(201);
    expect(await phonesOf(t.id)).toHaveLength(1);
  });

  it("is in the OpenAPI document with the session scheme", async () => {
    const doc = (await callJson("/v1/openapi.json")).body;
    expect(Object.keys(doc.paths["/v1/phones"]).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/v1/phones/{id}"])).toEqual(["delete"]);
    for (const op of [doc.paths["/v1/phones"].get, doc.paths["/v1/phones"].post, doc.paths["/v1/phones/{id}"].delete]) {
      expect(op.security).toEqual([{ session: [] }]);
    }
    expect(doc.components.schemas.Phone.properties).toHaveProperty("registered_by");
  });
});

describe("bot one-time codes only for registered phones", () => {
  it("refuses an unregistered phone with a clear 403 and stores no code; a registered one signs in to its tenant", async () => {
    const t = await seedTenant();
    const number = phone();
    const signedAt = Math.floor(Date.now() / 1000);
    const refused = await botCall("/v1/bot/otp", { tenant_id: t.id, phone: number }, { timestamp: signedAt });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("forbidden");
    expect(refused.body.error.message).toMatch(/not registered for this tenant.*POST \/v1\/phones/);
    expect(await db().select().from(otpCodes).where(eq(otpCodes.phone, number))).toEqual([]);

    const { cookie } = await signIn(t.id);
    expect((await callJson("/v1/phones", { headers: dashboard(cookie), body: { phone: number } })).status).toBe(201);
    // Another second: the byte-identical request signed in the same second would be a replay.
    const issued = await botCall("/v1/bot/otp", { tenant_id: t.id, phone: number }, { timestamp: signedAt - 1 });
    expect(issued.status).toBe(201);
    const res = await call("/v1/auth/otp/verify", { body: { otp_id: issued.body.otp_id, code: issued.body.code } });
    const me = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(me.tenant.id).toBe(t.id);
    expect(me.user.phone).toBe(number);
    expect(setCookie(res, "svc_session")).toBeDefined();

    // Registered in one tenant is not registered in another: the bot cannot name any tenant_id.
    const elsewhere = await seedTenant();
    const foreign = await botCall("/v1/bot/otp", { tenant_id: elsewhere.id, phone: number });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.message).toMatch(/not registered/);
  });

  it("removing a member who signs in by phone removes the tenant's registration of it, and the audit log says so beside the removal", async () => {
    const t = await seedTenant();
    const { cookie } = await signIn(t.id);
    const number = phone();
    const registered = await callJson("/v1/phones", { headers: dashboard(cookie), body: { phone: number, label: "Field lead" } });
    const issued = await botCall("/v1/bot/otp", { tenant_id: t.id, phone: number });
    const joined = await callJson("/v1/auth/otp/verify", { body: { otp_id: issued.body.otp_id, code: issued.body.code } });
    expect(joined.status).toBe(200);

    expect((await callJson(`/v1/members/${joined.body.user.id}`, { method: "DELETE", headers: dashboard(cookie) })).status).toBe(200);
    expect(await phonesOf(t.id)).toEqual([]);
    const entries = await db().select().from(auditLog).where(eq(auditLog.tenantId, t.id));
    const removal = entries.find((e) => e.action === "member.removed")!;
    const phoneRemoval = entries.filter((e) => e.action === "phone.removed");
    expect(phoneRemoval).toHaveLength(1);
    expect(phoneRemoval[0]).toMatchObject({ targetType: "phone", targetId: registered.body.id, targetLabel: number, actorId: removal.actorId, details: { with_member: joined.body.user.id } });
    expect(phoneRemoval[0]!.id > removal.id).toBe(true);
  });

  it("removing the phone stops new codes, and a code issued before no longer signs in", async () => {
    const t = await seedTenant();
    const { cookie } = await signIn(t.id);
    const number = phone();
    const registered = await callJson("/v1/phones", { headers: dashboard(cookie), body: { phone: number } });
    const signedAt = Math.floor(Date.now() / 1000);
    const issued = await botCall("/v1/bot/otp", { tenant_id: t.id, phone: number }, { timestamp: signedAt });
    expect(issued.status).toBe(201);
    expect((await callJson(`/v1/phones/${registered.body.id}`, { method: "DELETE", headers: dashboard(cookie) })).status).toBe(200);

    const late = await call("/v1/auth/otp/verify", { body: { otp_id: issued.body.otp_id, code: issued.body.code } });
    const body = (await late.json()) as any;
    expect(late.status).toBe(401);
    expect(body.error.message).toMatch(/no longer registered/);
    expect(setCookie(late, "svc_session")).toBeUndefined();
    const again = await botCall("/v1/bot/otp", { tenant_id: t.id, phone: number }, { timestamp: signedAt - 1 });
    expect(again.status).toBe(403);
    expect(again.body.error.message).toMatch(/not registered/);
  });
});
