import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { signSession } from "../../src/auth/session";
import { createDb } from "../../src/db/client";
import { auditLog, memberships } from "../../src/db/schema";
import { removeMember } from "../../src/domain/accounts/members";
import type { AuditEntry } from "../../src/domain/audit/log";
import { callJson, db, seedTenant } from "../helpers/api";
import { dashboard, signIn } from "../helpers/session";

async function me(cookie: string) {
  return callJson("/v1/me", { headers: { Cookie: cookie } });
}

async function addMember(tenantId: string, userId: string, role: "owner" | "admin" | "reviewer" | "viewer" = "viewer") {
  await db().insert(memberships).values({ tenantId, userId, role, createdAt: Date.now() });
}

/**
 * The real D1, whose next batch first lets `meanwhile` commit: another request's write landing
 * between a change's check (its read) and its own write.
 */
function d1WithWriteBetween(meanwhile: () => Promise<unknown>): D1Database {
  let pending: (() => Promise<unknown>) | null = meanwhile;
  return new Proxy(env.DB, {
    get(target, prop) {
      if (prop === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          const first = pending;
          pending = null;
          if (first) await first();
          return target.batch(statements);
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const setRole = (tenantId: string, userId: string, role: "owner" | "admin" | "reviewer" | "viewer") => () =>
  db().update(memberships).set({ role }).where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId))).run();

const removal = (tenantId: string, actor: { userId: string; email: string }, actorRole: "owner" | "admin", userId: string) => ({
  tenantId,
  actorRole,
  userId,
  audit: (m: { userId: string; email: string | null }): AuditEntry => ({
    tenantId,
    action: "member.removed",
    actor: { type: "user", id: actor.userId, label: actor.email },
    target: { type: "user", id: m.userId, label: m.email },
    client: { ip: null, userAgent: null },
  }),
});

const removedEntries = async (tenantId: string, userId: string) =>
  (await db().select().from(auditLog).where(and(eq(auditLog.tenantId, tenantId), eq(auditLog.targetId, userId)))).filter((e) => e.action === "member.removed");

describe("members and roles", () => {
  it("a removal racing a promotion removes only the role it checked: an admin's removal of a member promoted to owner meanwhile is refused, and nothing is recorded", async () => {
    const t = await seedTenant();
    await signIn(t.id, "owner");
    const admin = await signIn(t.id, "admin");
    const member = await signIn(t.id, "viewer");
    const raced = createDb(d1WithWriteBetween(setRole(t.id, member.userId, "owner")));
    const outcome = await removeMember(raced, removal(t.id, admin, "admin", member.userId)).then(
      () => "removed",
      (err: { code?: string }) => err.code,
    );
    expect(outcome).toBe("forbidden");
    const [row] = await db().select().from(memberships).where(and(eq(memberships.tenantId, t.id), eq(memberships.userId, member.userId)));
    expect(row?.role).toBe("owner");
    expect(await removedEntries(t.id, member.userId)).toEqual([]);
  });

  it("a removal racing a role change that the remover may still make removes the member, and the audit log records the role they had", async () => {
    const t = await seedTenant();
    const owner = await signIn(t.id, "owner");
    const member = await signIn(t.id, "viewer");
    const raced = createDb(d1WithWriteBetween(setRole(t.id, member.userId, "admin")));
    const removed = await removeMember(raced, removal(t.id, owner, "owner", member.userId));
    expect(removed).toMatchObject({ userId: member.userId, role: "admin" });
    expect(await db().select().from(memberships).where(and(eq(memberships.tenantId, t.id), eq(memberships.userId, member.userId)))).toEqual([]);
    const entries = await removedEntries(t.id, member.userId);
    expect(entries.map((e) => e.details)).toEqual([{ role: "admin" }]);
  });

  it("lists the team to any member, with roles; another tenant's members are not in it", async () => {
    const t = await seedTenant();
    const owner = await signIn(t.id, "owner");
    const viewer = await signIn(t.id, "viewer");
    await signIn((await seedTenant("Other")).id, "owner");
    const res = await callJson("/v1/members", { headers: dashboard(viewer.cookie) });
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual(
      [owner, viewer]
        .map((m, i) => ({ user_id: m.userId, email: m.email, role: i === 0 ? "owner" : "viewer", joined_at: expect.any(String) }))
        .sort((a, b) => a.user_id.localeCompare(b.user_id)),
    );
    expect(res.body.next_cursor).toBeUndefined();
    // Keyset pages.
    const first = await callJson("/v1/members?limit=1", { headers: dashboard(viewer.cookie) });
    expect(first.body.items).toHaveLength(1);
    const second = await callJson(`/v1/members?limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`, { headers: dashboard(viewer.cookie) });
    expect(second.body.items).toHaveLength(1);
    expect(second.body.items[0].user_id).not.toBe(first.body.items[0].user_id);
    expect((await callJson("/v1/members?cursor=forged", { headers: dashboard(viewer.cookie) })).status).toBe(400);
  });

  it("admins change and remove members other than owners; owners anyone; the role applies on the next request", async () => {
    const t = await seedTenant();
    const owner = await signIn(t.id, "owner");
    const admin = await signIn(t.id, "admin");
    const colleague = await signIn(t.id, "viewer");
    const otherOwner = await signIn(t.id, "owner");

    // A viewer cannot create verifications; promoted to reviewer, the same session can.
    const create = () => callJson("/v1/verifications", { headers: dashboard(colleague.cookie), body: { max_captures: 1 } });
    expect((await create()).status).toBe(403);
    const promoted = await callJson(`/v1/members/${colleague.userId}`, { method: "PATCH", headers: dashboard(admin.cookie), body: { role: "reviewer" } });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ user_id: colleague.userId, role: "reviewer" });
    expect((await create()).status).toBe(201);
    expect((await me(colleague.cookie)).body.role).toBe("reviewer");

    // An admin may not touch an owner nor make anyone owner.
    for (const [userId, role] of [[otherOwner.userId, "admin"], [colleague.userId, "owner"]] as const) {
      const refused = await callJson(`/v1/members/${userId}`, { method: "PATCH", headers: dashboard(admin.cookie), body: { role } });
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toMatch(/Only an owner/);
    }
    expect((await callJson(`/v1/members/${otherOwner.userId}`, { method: "DELETE", headers: dashboard(admin.cookie) })).status).toBe(403);
    // An owner may.
    expect((await callJson(`/v1/members/${colleague.userId}`, { method: "PATCH", headers: dashboard(owner.cookie), body: { role: "owner" } })).body.role).toBe("owner");
    expect((await callJson(`/v1/members/${colleague.userId}`, { method: "PATCH", headers: dashboard(owner.cookie), body: { role: "viewer" } })).body.role).toBe("viewer");

    // Unknown, another tenant's, malformed: 404; a bad role: 400.
    const stranger = await signIn((await seedTenant("Other")).id, "viewer");
    for (const userId of [stranger.userId, "usr_01JD2Y4N9M6Q8R0S2T4V6W8X0Z", "nobody"]) {
      expect((await callJson(`/v1/members/${userId}`, { method: "PATCH", headers: dashboard(owner.cookie), body: { role: "viewer" } })).status).toBe(404);
      expect((await callJson(`/v1/members/${userId}`, { method: "DELETE", headers: dashboard(owner.cookie) })).status).toBe(404);
    }
    const bad = await callJson(`/v1/members/${colleague.userId}`, { method: "PATCH", headers: dashboard(owner.cookie), body: { role: "superuser" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields).toHaveProperty("role");
  });

  it("keeps the last owner: demoting or removing them is 409 invalid_state, also when two owners race to step down", async () => {
    const t = await seedTenant();
    const owner = await signIn(t.id, "owner");
    for (const attempt of [
      () => callJson(`/v1/members/${owner.userId}`, { method: "PATCH", headers: dashboard(owner.cookie), body: { role: "admin" } }),
      () => callJson(`/v1/members/${owner.userId}`, { method: "DELETE", headers: dashboard(owner.cookie) }),
    ]) {
      const res = await attempt();
      expect(res.status).toBe(409);
      expect(res.body.error).toEqual({ code: "invalid_state", message: "A tenant keeps at least one owner: make another member owner first." });
    }
    expect((await me(owner.cookie)).body.role).toBe("owner");

    // Two owners demote themselves at once: exactly one succeeds, one owner remains.
    const second = await signIn(t.id, "owner");
    const results = await Promise.all(
      [owner, second].map((o) => callJson(`/v1/members/${o.userId}`, { method: "PATCH", headers: dashboard(o.cookie), body: { role: "admin" } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const members = (await callJson("/v1/members", { headers: dashboard(owner.cookie) })).body.items;
    expect(members.filter((m: { role: string }) => m.role === "owner")).toHaveLength(1);
    // Likewise for removals.
    const third = await signIn(t.id, "owner");
    const stillOwner = members.find((m: { role: string }) => m.role === "owner").user_id;
    const ownerCookie = stillOwner === owner.userId ? owner.cookie : second.cookie;
    const removals = await Promise.all([
      callJson(`/v1/members/${third.userId}`, { method: "DELETE", headers: dashboard(ownerCookie) }),
      callJson(`/v1/members/${stillOwner}`, { method: "DELETE", headers: dashboard(third.cookie) }),
    ]);
    // One removal wins; the other finds either its caller already removed (401) or the last owner (409).
    const statuses = removals.map((r) => r.status).sort();
    expect(statuses[0]).toBe(200);
    expect([401, 409]).toContain(statuses[1]);
    const left = (await db().select().from(memberships)).filter((m) => m.tenantId === t.id && m.role === "owner");
    expect(left).toHaveLength(1);
  });

  it("a removed member's sessions for that tenant stop at once (others stay); rejoining does not revive an old session", async () => {
    const t = await seedTenant();
    const other = await seedTenant("Other");
    const owner = await signIn(t.id, "owner");
    const member = await signIn(t.id, "reviewer");
    await addMember(other.id, member.userId, "viewer");
    const inOther = `svc_session=${await signSession(env, { userId: member.userId, tenantId: other.id })}`;
    const laptop = `svc_session=${await signSession(env, { userId: member.userId, tenantId: t.id })}`;
    expect((await me(laptop)).status).toBe(200);

    const removed = await callJson(`/v1/members/${member.userId}`, { method: "DELETE", headers: dashboard(owner.cookie) });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ user_id: member.userId, role: "reviewer" });
    for (const cookie of [member.cookie, laptop]) {
      expect((await me(cookie)).status).toBe(401);
      expect((await callJson("/v1/verifications", { headers: { Cookie: cookie } })).status).toBe(401);
    }
    // Their membership elsewhere is untouched, and so is the account.
    expect((await me(inOther)).body).toMatchObject({ tenant: { id: other.id }, role: "viewer" });
    expect((await callJson(`/v1/members/${member.userId}`, { method: "DELETE", headers: dashboard(owner.cookie) })).status).toBe(404);

    // Added back later: a session issued before the new membership stays void.
    await new Promise((r) => setTimeout(r, 5));
    await addMember(t.id, member.userId, "viewer");
    expect((await me(laptop)).status).toBe(401);
    const fresh = `svc_session=${await signSession(env, { userId: member.userId, tenantId: t.id })}`;
    expect((await me(fresh)).body.role).toBe("viewer");
  });

  it("GET /v1/me shows the active tenant, the role there and every membership; switching re-issues the session for another", async () => {
    const a = await seedTenant("Alpha");
    const b = await seedTenant("Beta");
    const c = await seedTenant("Gamma");
    const person = await signIn(a.id, "admin");
    await addMember(b.id, person.userId, "viewer");
    const mine = await me(person.cookie);
    expect(mine.body).toMatchObject({ user: { id: person.userId, email: person.email }, tenant: { id: a.id }, role: "admin" });
    expect(mine.body.memberships.map((m: { tenant: { id: string }; role: string }) => [m.tenant.id, m.role])).toEqual([
      [a.id, "admin"],
      [b.id, "viewer"],
    ]);

    const switched = await callJson("/v1/auth/switch-tenant", { headers: dashboard(person.cookie), body: { tenant_id: b.id } });
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({ tenant: { id: b.id }, role: "viewer" });
    const cookie = switched.headers.getSetCookie().find((h) => h.startsWith("svc_session="))!.split(";")[0]!;
    expect((await me(cookie)).body.tenant.id).toBe(b.id);
    // The new session acts in b with b's role: a viewer there.
    expect((await callJson("/v1/api-keys", { headers: { Cookie: cookie } })).status).toBe(403);
    expect((await callJson("/v1/verifications", { headers: { Cookie: cookie } })).status).toBe(200);

    // Not a member of c (or not a tenant at all): 404; a malformed id: 400.
    expect((await callJson("/v1/auth/switch-tenant", { headers: dashboard(person.cookie), body: { tenant_id: c.id } })).status).toBe(404);
    expect((await callJson("/v1/auth/switch-tenant", { headers: dashboard(person.cookie), body: { tenant_id: "nope" } })).status).toBe(400);
  });

  it("sign out everywhere ends this tenant's sessions of every member, not their sessions elsewhere", async () => {
    const t = await seedTenant();
    const other = await seedTenant("Other");
    const admin = await signIn(t.id, "admin");
    const colleague = await signIn(t.id, "viewer");
    await addMember(other.id, colleague.userId, "viewer");
    const colleagueElsewhere = `svc_session=${await signSession(env, { userId: colleague.userId, tenantId: other.id })}`;
    const res = await callJson("/v1/auth/logout-everywhere", { method: "POST", headers: dashboard(admin.cookie) });
    expect(res.body).toEqual({ signed_out: true, users: 2 });
    expect((await me(admin.cookie)).status).toBe(401);
    expect((await me(colleague.cookie)).status).toBe(401);
    expect((await me(colleagueElsewhere)).status).toBe(200);
    // A session issued afterwards works.
    await new Promise((r) => setTimeout(r, 5));
    expect((await me(`svc_session=${await signSession(env, { userId: admin.userId, tenantId: t.id })}`)).status).toBe(200);
  });
});
