import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, certificateLinks, outboundMessages } from "../../src/db/schema";
import { AUDIT_ACTIONS, type AuditAction } from "../../src/domain/audit/log";
import { MAX_ACTIVE_LINKS, revokeCertificateLink } from "../../src/domain/certificates/links";
import { mintApiKey } from "../../src/domain/tenants/api-keys";
import { DOMAIN_RECHECK_INTERVAL_MS, recheckDomains } from "../../src/domain/tenants/domains";
import { newId } from "../../src/lib/ids";
import { call, callJson, createVerification, db, eventually, seedTenant } from "../helpers/api";
import { nextSignInLink } from "../helpers/sign-in-mail";
import { inlineCapture } from "../helpers/capture";
import { completedVerification } from "../helpers/certificates";
import { freshDomain, publishTxt, unpublish } from "../helpers/dns";
import { setCookie, signIn } from "../helpers/session";
import { receiver } from "../helpers/webhooks";

/*
 * Every action the audit log records, done through the API as an operator or a key would, then read
 * back from GET /v1/audit-log: who (with email or key name), what, to what, when, from where.
 */

const FROM = { "CF-Connecting-IP": "2001:db8:1:2::7", "User-Agent": "Mozilla/5.0 (audit test)" };

interface Entry {
  id: string;
  action: AuditAction;
  actor: { type: string; id: string; label?: string };
  target: { type: string; id: string; label?: string };
  details?: Record<string, unknown>;
  occurred_at: string;
  client: { ip?: string; user_agent?: string };
}

async function logOf(cookie: string, query = ""): Promise<Entry[]> {
  const items: Entry[] = [];
  let cursor: string | undefined;
  do {
    const res = await callJson(`/v1/audit-log?limit=100${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { headers: { Cookie: cookie } });
    expect(res.status).toBe(200);
    items.push(...res.body.items);
    cursor = res.body.next_cursor;
  } while (cursor);
  return items;
}

describe("operator audit log", () => {
  it("records every action with its actor, target, time and client; newest first; filters by action and actor", async () => {
    const t = await seedTenant("Audited");
    const owner = await signIn(t.id, "owner");
    const asOwner = (init: { method?: string; body?: unknown } = {}) => ({ ...init, headers: { Cookie: owner.cookie, ...FROM } });
    const key = await mintApiKey(db(), { tenantId: t.id, environment: "test", scope: "full", name: "Claims back-end" });
    const asKey = (init: { method?: string; body?: unknown } = {}) => ({ ...init, key: key.plaintext, headers: FROM });
    const seen = new Set<AuditAction>();
    const expectEntry = async (action: AuditAction, match: Partial<Entry>) => {
      const entries = await logOf(owner.cookie, `&action=${action}`);
      expect(entries.length, action).toBeGreaterThan(0);
      expect(entries[0], action).toMatchObject({ action, ...match });
      seen.add(action);
      return entries;
    };
    const ownerActor = { type: "user", id: owner.userId, label: owner.email };
    const keyActor = { type: "api_key", id: key.row.id, label: "Claims back-end" };
    const client = { ip: FROM["CF-Connecting-IP"], user_agent: FROM["User-Agent"] };

    // Members and invitations.
    const email = `joiner-${Date.now().toString(36)}@example.com`;
    const invited = await callJson("/v1/invitations", asOwner({ body: { email, role: "viewer" } }));
    await expectEntry("member.invited", { actor: ownerActor, target: { type: "invitation", id: invited.body.id, label: email }, details: { role: "viewer" }, client });
    await callJson(`/v1/invitations/${invited.body.id}/resend`, asOwner({ method: "POST" }));
    await expectEntry("invitation.resent", { actor: ownerActor, target: { type: "invitation", id: invited.body.id, label: email } });
    const [mail] = (await db().select().from(outboundMessages).where(eq(outboundMessages.recipient, email))).sort((a, b) => b.id.localeCompare(a.id));
    const link = /http:\/\/localhost:8787(\/v1\/auth\/invitation\/ivt_[0-9A-Za-z]+)/.exec(mail!.body)![1]!;
    const joined = await call(link, { method: "POST", redirect: "manual", headers: FROM });
    await joined.text();
    const joinerCookie = setCookie(joined, "svc_session")!.pair;
    const joiner = (await callJson("/v1/me", { headers: { Cookie: joinerCookie } })).body.user;
    const joinerActor = { type: "user", id: joiner.id, label: email };
    await expectEntry("member.joined", { actor: joinerActor, target: { type: "user", id: joiner.id }, details: { role: "viewer", via: "invitation", invitation_id: invited.body.id }, client });
    await expectEntry("session.signed_in", { actor: joinerActor, details: { method: "invitation" }, client });
    const other = await callJson("/v1/invitations", asOwner({ body: { email: `never-${email}`, role: "reviewer" } }));
    await callJson(`/v1/invitations/${other.body.id}`, asOwner({ method: "DELETE" }));
    await expectEntry("invitation.revoked", { actor: ownerActor, target: { type: "invitation", id: other.body.id } });
    await callJson(`/v1/members/${joiner.id}`, asOwner({ method: "PATCH", body: { role: "reviewer" } }));
    await expectEntry("member.role_changed", { actor: ownerActor, target: { type: "user", id: joiner.id, label: email }, details: { from: "viewer", to: "reviewer" } });
    await callJson(`/v1/members/${joiner.id}`, asOwner({ method: "DELETE" }));
    await expectEntry("member.removed", { actor: ownerActor, target: { type: "user", id: joiner.id, label: email }, details: { role: "reviewer" } });

    // Keys, webhook secret, settings, phones.
    const minted = await callJson("/v1/api-keys", asOwner({ body: { scope: "publishable", name: "App" } }));
    await expectEntry("api_key.created", { actor: ownerActor, target: { type: "api_key", id: minted.body.id, label: "App" }, details: { scope: "publishable" } });
    await callJson(`/v1/api-keys/${minted.body.id}`, asOwner({ method: "DELETE" }));
    await callJson(`/v1/api-keys/${minted.body.id}`, asOwner({ method: "DELETE" })); // a repeat records nothing
    expect(await expectEntry("api_key.revoked", { actor: ownerActor, target: { type: "api_key", id: minted.body.id } })).toHaveLength(1);
    await callJson("/v1/webhook-secret/rotate", asOwner({ method: "POST" }));
    await expectEntry("webhook_secret.rotated", { actor: ownerActor, target: { type: "tenant", id: t.id } });
    await callJson("/v1/webhook-secret", asOwner());
    await expectEntry("webhook_secret.revealed", { actor: ownerActor, target: { type: "tenant", id: t.id }, client });
    await callJson("/v1/tenant/settings", asOwner({ method: "PATCH", body: { retention_days: 90 } }));
    await expectEntry("settings.updated", { actor: ownerActor, target: { type: "tenant", id: t.id }, details: { changed: { retention_days: 90 } } });
    // Only what changed is named, and a PATCH that changes nothing records nothing.
    await callJson("/v1/tenant/settings", asOwner({ method: "PATCH", body: { retention_days: 90, share_reuse_index: true } }));
    const updated = await expectEntry("settings.updated", { details: { changed: { share_reuse_index: true } } });
    expect(updated[0]?.details?.changed).toEqual({ share_reuse_index: true });
    expect((await callJson("/v1/tenant/settings", asOwner({ method: "PATCH", body: { retention_days: 90, share_reuse_index: true } }))).status).toBe(200);
    expect(await logOf(owner.cookie, "&action=settings.updated")).toHaveLength(updated.length);
    // The tenant's domain: claimed, verified, removed; and dropped by the service's re-check once its record is gone.
    const domain = freshDomain("audited");
    const claim = (await callJson("/v1/tenant/domain/claim", asOwner({ body: { domain } }))).body.claim;
    const domainTarget = { type: "tenant", id: t.id, label: domain };
    await expectEntry("domain.claimed", { actor: ownerActor, target: domainTarget, details: { domain }, client });
    await publishTxt(claim.record.name, [claim.record.value]);
    expect((await callJson("/v1/tenant/domain/check", asOwner({ method: "POST" }))).status).toBe(200);
    await expectEntry("domain.verified", { actor: ownerActor, target: domainTarget, details: { domain }, client });
    await callJson("/v1/tenant/domain", asOwner({ method: "DELETE" }));
    await expectEntry("domain.removed", { actor: ownerActor, target: domainTarget, details: { domain } });
    const reclaim = (await callJson("/v1/tenant/domain/claim", asOwner({ body: { domain } }))).body.claim;
    await publishTxt(reclaim.record.name, [reclaim.record.value]);
    expect((await callJson("/v1/tenant/domain/check", asOwner({ method: "POST" }))).status).toBe(200);
    await unpublish(reclaim.record.name);
    await recheckDomains(env, db(), Date.now() + DOMAIN_RECHECK_INTERVAL_MS + 1);
    await expectEntry("domain.dropped", { actor: { type: "service", id: "domain_recheck" }, target: domainTarget, details: { domain, reason: "record_missing" }, client: {} });
    const phone = await callJson("/v1/phones", asOwner({ body: { phone: "+447700900555" } }));
    await expectEntry("phone.registered", { actor: ownerActor, target: { type: "phone", id: phone.body.id, label: "+447700900555" } });
    await callJson(`/v1/phones/${phone.body.id}`, asOwner({ method: "DELETE" }));
    await expectEntry("phone.removed", { actor: ownerActor, target: { type: "phone", id: phone.body.id } });

    // Templates, by the key (an API key is an actor too).
    const slug = `roof-${Date.now().toString(36)}`;
    const tpl = await callJson("/v1/link-templates", asKey({ body: { slug, name: "Roof", max_captures: 1 } }));
    await expectEntry("template.published", { actor: keyActor, target: { type: "template", id: tpl.body.id, label: slug }, details: { version: 1, name: "Roof" }, client });
    await callJson(`/v1/link-templates/${slug}`, asOwner({ method: "PATCH", body: { name: "Roof v2" } }));
    await expectEntry("template.published", { actor: ownerActor, details: { version: 2, name: "Roof v2" } });
    await callJson(`/v1/link-templates/${slug}/revoke`, asKey({ method: "POST" }));
    await callJson(`/v1/link-templates/${slug}/revoke`, asKey({ method: "POST" }));
    expect(await expectEntry("template.revoked", { actor: keyActor, target: { type: "template", id: tpl.body.id } })).toHaveLength(1);

    // Evidence: review, finalize, a webhook retry, redaction (the Durable Object's own batch).
    const r = receiver();
    const v = await createVerification(t.key, { max_captures: 2, webhook_url: r.url });
    await inlineCapture(v.id);
    expect((await callJson(`/v1/verifications/${v.id}/review`, asOwner({ body: { decision: "needs_more", note: "Plate unreadable: Jane Roe's car" } }))).status).toBe(200);
    const reviewed = await expectEntry("verification.reviewed", { actor: ownerActor, target: { type: "verification", id: v.id }, details: { decision: "needs_more" }, client });
    expect(JSON.stringify(reviewed)).not.toContain("Jane Roe"); // the note stays on the timeline only
    expect((await callJson(`/v1/verifications/${v.id}/finalize`, asKey({ body: { narrative: "Rear-ended at a junction." } }))).status).toBe(200);
    await expectEntry("verification.finalized", { actor: keyActor, target: { type: "verification", id: v.id } });
    const delivery = await eventually(async () => {
      const items = (await callJson(`/v1/verifications/${v.id}/webhook-deliveries`, { key: t.key })).body.items as Array<{ id: string; status: string }>;
      return items.find((d) => d.status === "succeeded");
    }, "a delivered webhook", 20_000);
    expect((await callJson(`/v1/webhook-deliveries/${delivery.id}/retry`, asOwner({ method: "POST" }))).status).toBe(200);
    await expectEntry("webhook_delivery.retried", { actor: ownerActor, target: { type: "webhook_delivery", id: delivery.id }, details: { verification_id: v.id, status_before: "succeeded" } });

    // Sharing a completed verification's result: certificate links, by the key and by the owner. Their
    // token is a credential (stored only hashed): neither it nor the URL is in any entry.
    const { v: shared } = await completedVerification(t);
    const keyLink = await callJson(`/v1/verifications/${shared.id}/certificate-link`, asKey({ method: "POST" }));
    expect(keyLink.status, JSON.stringify(keyLink.body)).toBe(201);
    await expectEntry("certificate_link.created", { actor: keyActor, target: { type: "verification", id: shared.id }, details: { link_id: keyLink.body.id }, client });
    const ownerLink = await callJson(`/v1/verifications/${shared.id}/certificate-link`, asOwner({ method: "POST" }));
    expect(ownerLink.status, JSON.stringify(ownerLink.body)).toBe(201);
    const linksCreated = await expectEntry("certificate_link.created", { actor: ownerActor, target: { type: "verification", id: shared.id }, details: { link_id: ownerLink.body.id }, client });
    expect(linksCreated.map((e) => e.details)).toEqual([{ link_id: ownerLink.body.id }, { link_id: keyLink.body.id }]);
    // Revoked, then again: one entry, by whoever revoked it (two at once: a test below).
    const revokeOwnerLink = () => callJson(`/v1/certificate-links/${ownerLink.body.id}`, asOwner({ method: "DELETE" }));
    expect((await revokeOwnerLink()).status).toBe(200);
    expect((await revokeOwnerLink()).status).toBe(200);
    const linkRevoked = { actor: ownerActor, target: { type: "certificate_link", id: ownerLink.body.id }, details: { verification_id: shared.id }, client };
    expect(await expectEntry("certificate_link.revoked", linkRevoked)).toHaveLength(1);
    // An unknown link, and this tenant's link revoked by another tenant's key, are 404 and record nothing.
    expect((await callJson("/v1/certificate-links/certlink_01JD2Y4N9M6Q8R0S2T4V6W8X0Z", asOwner({ method: "DELETE" }))).status).toBe(404);
    const outsider = await seedTenant("Outsider");
    expect((await callJson(`/v1/certificate-links/${keyLink.body.id}`, { method: "DELETE", key: outsider.key, headers: FROM })).status).toBe(404);
    expect(await logOf(owner.cookie, "&action=certificate_link.revoked")).toMatchObject([linkRevoked]);
    expect(await db().select().from(auditLog).where(eq(auditLog.tenantId, outsider.id))).toEqual([]);
    const rows = JSON.stringify(await db().select().from(auditLog).where(eq(auditLog.tenantId, t.id)));
    const served = JSON.stringify(await logOf(owner.cookie));
    for (const url of [keyLink.body.url as string, ownerLink.body.url as string]) {
      const token = /\/v1\/certificates\/cert_([0-9A-Za-z]{43})$/.exec(url)?.[1];
      expect(token, url).toBeDefined();
      expect(rows).not.toContain(token!);
      expect(served).not.toContain(token!);
    }
    expect(`${rows}${served}`).not.toContain("/v1/certificates/");

    expect((await callJson(`/v1/verifications/${v.id}/redact`, asOwner({ method: "POST" }))).status).toBe(200);
    expect((await callJson(`/v1/verifications/${v.id}/redact`, asKey({ method: "POST" }))).status).toBe(200);
    // Once, by whom; and redaction removed none of the entries about the verification.
    const redacted = await expectEntry("verification.redacted", { actor: ownerActor, target: { type: "verification", id: v.id }, client });
    expect(redacted).toHaveLength(1);
    const aboutV = (await logOf(owner.cookie)).filter((e) => e.target.id === v.id).map((e) => e.action);
    expect(aboutV).toEqual(["verification.redacted", "verification.finalized", "verification.reviewed"]);

    // Filters combine; the key's entries alone.
    const byKey = await logOf(owner.cookie, `&actor_id=${key.row.id}`);
    expect(new Set(byKey.map((e) => e.action))).toEqual(new Set(["template.published", "template.revoked", "verification.finalized", "certificate_link.created"]));
    expect(await logOf(owner.cookie, `&actor_id=${key.row.id}&action=template.revoked`)).toHaveLength(1);

    // Sign-ins by other doors, and signing everyone out (last: it ends the owner's session).
    const magic = `magic-${email}`;
    await callJson("/v1/auth/magic-link", { body: { email: magic } });
    const magicPath = await nextSignInLink(magic);
    const signedIn = await call(magicPath, { method: "POST", redirect: "manual", headers: FROM });
    await signedIn.text();
    const magicUser = (await callJson("/v1/me", { headers: { Cookie: setCookie(signedIn, "svc_session")!.pair } })).body;
    expect(magicUser.role).toBe("owner"); // a first sign-in: a tenant of their own
    const own = await db().select().from(auditLog).where(eq(auditLog.tenantId, magicUser.tenant.id));
    expect(own).toMatchObject([{ action: "session.signed_in", actorId: magicUser.user.id, details: { method: "magic_link" }, ip: FROM["CF-Connecting-IP"] }]);
    await callJson("/v1/auth/logout-everywhere", asOwner({ method: "POST" }));
    const again = await signIn(t.id, "admin");
    const out = (await logOf(again.cookie, "&action=session.signed_out_everywhere"))[0];
    expect(out).toMatchObject({ actor: ownerActor, target: { type: "tenant", id: t.id } });
    seen.add("session.signed_out_everywhere");

    // Every action the log knows was exercised above.
    expect([...seen].sort()).toEqual([...AUDIT_ACTIONS].sort());

    // Newest first, keyset pages of any size, and a forged cursor is 400.
    const all = await logOf(again.cookie);
    expect(all.map((e) => e.id)).toEqual([...all.map((e) => e.id)].sort().reverse());
    const page1 = await callJson("/v1/audit-log?limit=3", { headers: { Cookie: again.cookie } });
    const page2 = await callJson(`/v1/audit-log?limit=3&cursor=${encodeURIComponent(page1.body.next_cursor)}`, { headers: { Cookie: again.cookie } });
    expect([...page1.body.items, ...page2.body.items].map((e: Entry) => e.id)).toEqual(all.slice(0, 6).map((e) => e.id));
    expect((await callJson("/v1/audit-log?cursor=forged", { headers: { Cookie: again.cookie } })).status).toBe(400);
    // A cursor is its query's: with another filter it is refused, not read as a position.
    const filtered = await callJson(`/v1/audit-log?limit=3&action=member.role_changed&cursor=${encodeURIComponent(page1.body.next_cursor)}`, { headers: { Cookie: again.cookie } });
    expect(filtered.status).toBe(400);
    expect(filtered.body.error.fields.cursor).toMatch(/^This cursor belongs to another query/);
    expect((await callJson("/v1/audit-log?action=member.eaten", { headers: { Cookie: again.cookie } })).status).toBe(400);
    // Another tenant sees none of it.
    const stranger = await signIn((await seedTenant("Other")).id, "owner");
    expect(await logOf(stranger.cookie)).toEqual([]);
  }, 60_000);

  it("a certificate link the cap refuses records nothing; the one made after a revoke is recorded", async () => {
    const t = await seedTenant("Capped");
    const owner = await signIn(t.id, "owner");
    const { v } = await completedVerification(t);
    const first = await callJson(`/v1/verifications/${v.id}/certificate-link`, { method: "POST", key: t.key });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    // The rest of the cap filled in D1 directly (no request, so no entry), then one link too many.
    const now = Date.now();
    const fillers = Array.from({ length: MAX_ACTIVE_LINKS - 1 }, () => ({
      id: newId("certificateLink", now),
      verificationId: v.id,
      tenantId: t.id,
      tokenHash: crypto.randomUUID(),
      createdBy: "key_filler",
      createdAt: now,
    }));
    const inserts = fillers.map((row) => db().insert(certificateLinks).values(row));
    await db().batch(inserts as [(typeof inserts)[number], ...typeof inserts]);
    const refused = await callJson(`/v1/verifications/${v.id}/certificate-link`, { method: "POST", key: t.key });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("invalid_state");
    const created = async () => (await logOf(owner.cookie, "&action=certificate_link.created")).map((e) => e.details?.link_id);
    expect(await created()).toEqual([first.body.id]);
    expect((await callJson(`/v1/certificate-links/${fillers[0]!.id}`, { method: "DELETE", key: t.key })).status).toBe(200);
    const second = await callJson(`/v1/verifications/${v.id}/certificate-link`, { method: "POST", key: t.key });
    expect(second.status).toBe(201);
    expect(await created()).toEqual([second.body.id, first.body.id]);
  });

  it("a certificate link revoked by two calls at once is recorded once", async () => {
    const t = await seedTenant("Raced");
    const { v } = await completedVerification(t);
    const link = await callJson(`/v1/verifications/${v.id}/certificate-link`, { method: "POST", key: t.key });
    expect(link.status, JSON.stringify(link.body)).toBe(201);
    // Both calls read the link unrevoked before either writes (the domain function, so nothing else
    // sits between the read and the batch): only the batch whose UPDATE revokes it may record.
    const entry = (row: { id: string }) => ({
      tenantId: t.id,
      action: "certificate_link.revoked" as const,
      actor: { type: "api_key" as const, id: "key_racer", label: null },
      target: { type: "certificate_link", id: row.id },
      client: { ip: null, userAgent: null },
    });
    const [a, b] = await Promise.all([revokeCertificateLink(db(), t.id, link.body.id, entry), revokeCertificateLink(db(), t.id, link.body.id, entry)]);
    expect(a.revokedAt).not.toBeNull();
    expect(b.revokedAt).toBe(a.revokedAt);
    const rows = await db().select().from(auditLog).where(eq(auditLog.tenantId, t.id));
    expect(rows.filter((r) => r.action === "certificate_link.revoked")).toHaveLength(1);
  });

  it("is append-only: the database refuses to change or delete an entry", async () => {
    const t = await seedTenant();
    const owner = await signIn(t.id, "owner");
    await callJson("/v1/webhook-secret", { headers: { Cookie: owner.cookie } });
    const [entry] = await db().select().from(auditLog).where(eq(auditLog.tenantId, t.id));
    expect(entry).toBeDefined();
    const refusal = (work: Promise<unknown>) => work.then(() => "accepted", (err: Error) => `${err.message} ${String(err.cause)}`);
    expect(await refusal(db().update(auditLog).set({ actorLabel: "someone else" }).where(eq(auditLog.id, entry!.id)).run())).toMatch(/audit_log is append-only/);
    expect(await refusal(db().delete(auditLog).where(eq(auditLog.id, entry!.id)).run())).toMatch(/audit_log is append-only/);
    expect(await db().select().from(auditLog).where(eq(auditLog.id, entry!.id)).get()).toEqual(entry);
    const doc = (await callJson("/v1/openapi.json")).body;
    const writes = Object.entries(doc.paths).filter(([path]) => path.startsWith("/v1/audit-log")).flatMap(([, ops]) => Object.keys(ops as object));
    expect(writes).toEqual(["get"]);
  });
});
