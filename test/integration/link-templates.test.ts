import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { linkTemplates, linkTemplateVersions, verifications } from "../../src/db/schema";
import { utcDay } from "../../src/lib/time";
import { call, callJson, db, seedTenant, type TestTenant } from "../helpers/api";
import { dashboard, signIn } from "../helpers/session";

let n = 0;
const slug = () => `tpl-${Date.now().toString(36)}-${(n += 1)}`;

const photoSteps = [{ key: "roof", type: "image", description: "The roof", min: 1, max: 2 }];
const newSteps = [
  { key: "front", type: "image", description: "Front", min: 1, max: 1 },
  { key: "policy", type: "text", required: true, validation: { max_length: 20, format: "alphanumeric_id" } },
];

async function operator(t: TestTenant) {
  const { cookie } = await signIn(t.id);
  return {
    cookie,
    send: (path: string, body: unknown, method = "POST") => callJson(path, { method, body, headers: dashboard(cookie) }),
    read: (path: string) => callJson(path, { headers: { Cookie: cookie } }),
  };
}

/** Opens the public link like a browser would (without following the redirect). */
async function open(org: string, templateSlug: string, headers: Record<string, string> = {}) {
  const res = await call(`/l/${org}/${templateSlug}`, { redirect: "manual", headers });
  return { status: res.status, location: res.headers.get("Location"), type: res.headers.get("content-type"), text: await res.text() };
}

function verificationIdFrom(location: string | null): string {
  const match = /^http:\/\/localhost:8787\/c\/(vfy_[0-9A-HJKMNP-TV-Z]{26})$/.exec(location ?? "");
  if (!match) throw new Error(`not a capture page: ${location}`);
  return match[1]!;
}

describe("link templates", () => {
  it("publishes, starts verifications from the public link and counts them", async () => {
    const t = await seedTenant();
    const op = await operator(t);
    const s = slug();
    const published = await op.send("/v1/link-templates", { slug: s, name: "Roof claim", steps: photoSteps, expires_in_seconds: 3600, metadata: { line: "home" } });
    expect(published.status).toBe(201);
    expect(published.body).toMatchObject({
      slug: s,
      name: "Roof claim",
      mode: "verification",
      status: "active",
      version: 1,
      url: `http://localhost:8787/l/${t.slug}/${s}`,
      steps: photoSteps,
      max_captures: 2,
      // Its links lead to the hosted page, whose default set includes depth (from the capture-integrity record).
      signals_required: ["screen", "ai", "reverse", "depth"],
      metadata: { line: "home" },
      expires_in_seconds: 3600,
      seal: true,
      started_total: 0,
      started_today: 0,
    });
    expect(published.body.id).toMatch(/^tpl_/);

    const started = await open(t.slug, s);
    expect(started.status).toBe(303);
    const id = verificationIdFrom(started.location);
    const v = await callJson(`/v1/verifications/${id}`, { key: t.key });
    expect(v.body.config).toMatchObject({ steps: photoSteps, mode: "verification", metadata: { line: "home" } });
    expect(Date.parse(v.body.expires_at) - Date.parse(v.body.created_at)).toBe(3_600_000);
    const row = await db().select().from(verifications).where(eq(verifications.id, id)).get();
    expect(row).toMatchObject({ tenantId: t.id, templateId: published.body.id, templateVersion: 1, originChannel: "link" });

    const inspected = await op.read(`/v1/link-templates/${s}`);
    expect(inspected.body).toMatchObject({ started_total: 1, started_today: 1, version: 1 });
    // A full-scope API key may inspect and publish too; a publishable one may not.
    expect((await callJson(`/v1/link-templates/${s}`, { key: t.key })).body.started_total).toBe(1);
    expect((await callJson("/v1/link-templates", { key: t.key, body: { slug: slug(), name: "By key", max_captures: 1 } })).status).toBe(201);
    expect((await callJson("/v1/link-templates", { key: t.publishableKey, body: { slug: slug(), name: "No", max_captures: 1 } })).status).toBe(403);
  });

  it("link previews (chat apps unfurling the link, HEAD requests) neither start nor count", async () => {
    const t = await seedTenant();
    const op = await operator(t);
    const s = slug();
    await op.send("/v1/link-templates", { slug: s, name: "Bike check", steps: photoSteps });
    for (const ua of ["WhatsApp/2.23.20.0 A", "facebookexternalhit/1.1", "Slackbot-LinkExpanding 1.0", "TelegramBot (like TwitterBot)"]) {
      const res = await call(`/l/${t.slug}/${s}`, { redirect: "manual", headers: { "User-Agent": ua } });
      expect(res.status, ua).toBe(200);
      expect(await res.text()).toContain("Bike check");
    }
    const head = await call(`/l/${t.slug}/${s}`, { method: "HEAD", redirect: "manual" });
    expect(head.status).toBe(200);
    await head.text();
    expect((await op.read(`/v1/link-templates/${s}`)).body).toMatchObject({ started_total: 0, started_today: 0 });
    const person = await call(`/l/${t.slug}/${s}`, { redirect: "manual", headers: { "User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X)" } });
    expect(person.status).toBe(303);
    await person.text();
    expect((await op.read(`/v1/link-templates/${s}`)).body.started_total).toBe(1);
  });

  it("keeps the old spec for verifications started before an update, and keeps the old snapshot", async () => {
    const t = await seedTenant();
    const op = await operator(t);
    const s = slug();
    const v1 = await op.send("/v1/link-templates", { slug: s, name: "Claim", steps: photoSteps, expected_location: "48.8584, 2.2945" });
    const before = verificationIdFrom((await open(t.slug, s)).location);

    const updated = await op.send(`/v1/link-templates/${s}`, { steps: newSteps, name: "Claim v2", expected_location: null, mode: "audit" }, "PATCH");
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ version: 2, name: "Claim v2", mode: "audit", steps: newSteps, max_captures: 1 });
    expect(updated.body).not.toHaveProperty("expected_location");
    expect(updated.body.id).toBe(v1.body.id);

    const after = verificationIdFrom((await open(t.slug, s)).location);
    const oldOne = await callJson(`/v1/verifications/${before}`, { key: t.key });
    const newOne = await callJson(`/v1/verifications/${after}`, { key: t.key });
    expect(oldOne.body.config).toMatchObject({ steps: photoSteps, expected_location: "48.8584, 2.2945", mode: "verification" });
    expect(newOne.body.config.steps).toEqual(newSteps);
    expect(newOne.body.config.mode).toBe("audit");
    expect(newOne.body.config).not.toHaveProperty("expected_location");
    const rows = await db().select().from(verifications).where(eq(verifications.templateId, v1.body.id));
    expect(Object.fromEntries(rows.map((r) => [r.id, r.templateVersion]))).toEqual({ [before]: 1, [after]: 2 });

    // The same patch again (a retry, a form saved as it was) changes nothing, so it publishes nothing.
    const repeated = await op.send(`/v1/link-templates/${s}`, { steps: newSteps, name: "Claim v2", expected_location: null, mode: "audit" }, "PATCH");
    expect(repeated.status).toBe(200);
    const { started_today: _today, started_total: _total, ...unchanged } = updated.body;
    expect(repeated.body).toMatchObject({ ...unchanged, version: 2, updated_at: updated.body.updated_at });
    expect((await op.send(`/v1/link-templates/${s}`, { name: "Claim v2" }, "PATCH")).body.version).toBe(2);

    const snapshots = await db().select().from(linkTemplateVersions).where(eq(linkTemplateVersions.templateId, v1.body.id)).orderBy(linkTemplateVersions.version);
    expect(snapshots.map((x) => [x.version, x.name, x.mode])).toEqual([[1, "Claim", "verification"], [2, "Claim v2", "audit"]]);
    expect(snapshots[0]!.spec).toEqual({ steps: photoSteps, expected_location: "48.8584, 2.2945" });
    expect(snapshots[1]!.spec).toEqual({ steps: newSteps });
    expect((await op.read(`/v1/link-templates/${s}`)).body.started_total).toBe(2);
  });

  it("concurrent updates each publish a version of their own, or are told to send again: never a 500, no version lost", async () => {
    const t = await seedTenant();
    const op = await operator(t);
    const s = slug();
    expect((await op.send("/v1/link-templates", { slug: s, name: "Racing", max_captures: 1 })).status).toBe(201);
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => op.send(`/v1/link-templates/${s}`, { name: `Racing ${i}` }, "PATCH")));
    for (const r of results) expect([200, 409], JSON.stringify(r.body)).toContain(r.status);
    const published = results.filter((r) => r.status === 200).map((r) => r.body.version as number);
    expect(published.length).toBeGreaterThanOrEqual(12);
    expect(new Set(published).size).toBe(published.length);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error.code).toBe("invalid_state");
    const versions = await db().select().from(linkTemplateVersions).where(eq(linkTemplateVersions.templateId, results.find((r) => r.status === 200)!.body.id));
    expect(versions.map((v) => v.version).sort((a, b) => a - b)).toEqual(Array.from({ length: published.length + 1 }, (_, i) => i + 1));
  });

  it("validates publish and update; a refused update changes nothing", async () => {
    const t = await seedTenant();
    const op = await operator(t);
    const s = slug();
    expect((await op.send("/v1/link-templates", { slug: s, name: "A", max_captures: 2 })).status).toBe(201);
    const dup = await op.send("/v1/link-templates", { slug: s, name: "B", max_captures: 1 });
    expect(dup.status).toBe(400);
    expect(dup.body.error.fields).toHaveProperty("slug");
    const both = await op.send("/v1/link-templates", { slug: slug(), name: "C", max_captures: 1, steps: photoSteps });
    expect(both.status).toBe(400);
    expect(both.body.error.fields).toHaveProperty("max_captures");
    const badSlug = await op.send("/v1/link-templates", { slug: "Not A Slug", name: "D", max_captures: 1 });
    expect(badSlug.body.error.fields).toHaveProperty("slug");
    // The name is printed on the public link's pages and in the console: one line, as a tenant's display name.
    for (const name of ["Roof\nclaim", "Roof\u2028claim", "Roof\u0007"]) {
      const multiline = await op.send("/v1/link-templates", { slug: slug(), name, max_captures: 1 });
      expect(multiline.status, JSON.stringify(name)).toBe(400);
      expect(multiline.body.error.fields.name).toMatch(/^Must be one line of text/);
      expect((await op.send(`/v1/link-templates/${s}`, { name }, "PATCH")).body.error.fields.name).toMatch(/^Must be one line of text/);
    }

    const tooBig = await op.send(`/v1/link-templates/${s}`, { steps: [{ key: "a", type: "image", description: "", min: 1, max: 21 }] }, "PATCH");
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.error.fields).toHaveProperty("steps");
    const needsContext = await op.send(`/v1/link-templates/${s}`, { signals_required: ["context"] }, "PATCH");
    expect(needsContext.status).toBe(400);
    expect(needsContext.body.error.fields).toHaveProperty("context");
    // Nothing evaluated is never a verdict: a template cannot require no signal, at publish or update.
    for (const refused of [
      await op.send("/v1/link-templates", { slug: slug(), name: "E", max_captures: 1, signals_required: [] }),
      await op.send(`/v1/link-templates/${s}`, { signals_required: [] }, "PATCH"),
    ]) {
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe("invalid_request");
      expect(Object.keys(refused.body.error.fields)).toEqual(["signals_required"]);
    }
    expect((await op.send(`/v1/link-templates/${s}`, {}, "PATCH")).status).toBe(400);
    expect((await op.send(`/v1/link-templates/${s}`, { unknown_field: 1 }, "PATCH")).status).toBe(400);
    // A metadata key no JavaScript object holds as data is refused by name, at publish and update.
    for (const refused of [
      await op.send("/v1/link-templates", JSON.parse(`{"slug":"${slug()}","name":"F","max_captures":1,"metadata":{"__proto__":"x"}}`)),
      await op.send(`/v1/link-templates/${s}`, JSON.parse('{"metadata":{"line":"home","__proto__":"x"}}'), "PATCH"),
    ]) {
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(Object.keys(refused.body.error.fields)).toEqual(["metadata.__proto__"]);
    }
    const current = await op.read(`/v1/link-templates/${s}`);
    expect(current.body).toMatchObject({ version: 1, max_captures: 2 });
    // Switching from max_captures to steps replaces the sugar.
    const switched = await op.send(`/v1/link-templates/${s}`, { steps: photoSteps }, "PATCH");
    expect(switched.body).toMatchObject({ version: 2, steps: photoSteps, max_captures: 2 });
    expect((await op.send("/v1/link-templates/does-not-exist", { name: "x" }, "PATCH")).status).toBe(404);
  });

  it("a template stored requiring no signal (before that was refused) starts nothing: its link says it cannot be used", async () => {
    const t = await seedTenant();
    const op = await operator(t);
    const s = slug();
    expect((await op.send("/v1/link-templates", { slug: s, name: "Old", max_captures: 1, signals_required: ["screen"] })).status).toBe(201);
    // What a template published under the third release could hold.
    const row = await db().select().from(linkTemplates).where(and(eq(linkTemplates.tenantId, t.id), eq(linkTemplates.slug, s))).get();
    await db().update(linkTemplates).set({ spec: { ...row!.spec, signals_required: [] } }).where(eq(linkTemplates.id, row!.id));
    const opened = await open(t.slug, s);
    expect(opened.status).toBe(503);
    expect(opened.text).toContain("cannot start a verification");
    expect(await db().select().from(verifications).where(eq(verifications.templateId, row!.id))).toEqual([]);
    // Its operator fixes it by naming the signals.
    expect((await op.send(`/v1/link-templates/${s}`, { signals_required: ["screen"] }, "PATCH")).status).toBe(200);
    expect((await open(t.slug, s)).status).toBe(303);
  });

  it("revokes: the link answers a friendly 410 page; unknown links a 404 page", async () => {
    const t = await seedTenant();
    const op = await operator(t);
    const s = slug();
    await op.send("/v1/link-templates", { slug: s, name: "Roof <claim>", max_captures: 1 });
    const revoked = await op.send(`/v1/link-templates/${s}/revoke`, undefined);
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe("revoked");
    expect((await op.send(`/v1/link-templates/${s}/revoke`, undefined)).body.status).toBe("revoked");

    const gone = await open(t.slug, s);
    expect(gone.status).toBe(410);
    expect(gone.type).toMatch(/^text\/html/);
    expect(gone.text).toContain("no longer active");
    // In the language the capture page would speak to this browser.
    const goneEs = await open(t.slug, s, { "Accept-Language": "es-MX,es;q=0.9,en;q=0.5" });
    expect(goneEs.status).toBe(410);
    expect(goneEs.text).toContain('<html lang="es">');
    expect(goneEs.text).toContain("Este enlace ya no está activo");
    expect(goneEs.text).toContain("«Roof &#60;claim&#62;»");
    expect(gone.text).toContain("Roof &#60;claim&#62;");
    const counted = await db().select().from(linkTemplates).where(and(eq(linkTemplates.tenantId, t.id), eq(linkTemplates.slug, s))).get();
    expect(counted!.startedTotal).toBe(0);

    const patch = await op.send(`/v1/link-templates/${s}`, { name: "again" }, "PATCH");
    expect(patch.status).toBe(409);
    expect(patch.body.error.code).toBe("invalid_state");
    const republish = await op.send("/v1/link-templates", { slug: s, name: "again", max_captures: 1 });
    expect(republish.status).toBe(400);

    for (const [org, name] of [[t.slug, "nope"], ["no-such-org", s]] as const) {
      const missing = await open(org, name);
      expect(missing.status).toBe(404);
      expect(missing.type).toMatch(/^text\/html/);
      expect(missing.text).toContain("Link not found");
      expect((await open(org, name, { "Accept-Language": "es" })).text).toContain("Enlace no encontrado");
    }
  });

  it("a link with a trailing slash (added by a chat app or a person) leads to the link", async () => {
    const t = await seedTenant();
    const op = await operator(t);
    const s = slug();
    await op.send("/v1/link-templates", { slug: s, name: "Slashed", max_captures: 1 });
    const res = await call(`/l/${t.slug}/${s}/?utm_source=chat`, { redirect: "manual" });
    expect(res.status).toBe(308);
    expect(res.headers.get("Location")).toBe(`/l/${t.slug}/${s}?utm_source=chat`);
    await res.text();
    const started = await open(t.slug, s);
    expect(started.status).toBe(303);
  });

  it("lists for the session only, newest first, tenant scoped", async () => {
    const t = await seedTenant();
    const other = await seedTenant();
    const op = await operator(t);
    const slugs = [slug(), slug(), slug()];
    for (const s of slugs) await op.send("/v1/link-templates", { slug: s, name: s, max_captures: 1 });
    await op.send(`/v1/link-templates/${slugs[1]}/revoke`, undefined);
    await (await operator(other)).send("/v1/link-templates", { slug: slug(), name: "theirs", max_captures: 1 });

    const listed = await op.read("/v1/link-templates");
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((i: any) => i.slug)).toEqual([...slugs].reverse());
    expect(listed.body.items.map((i: any) => i.status)).toEqual(["active", "revoked", "active"]);
    expect((await callJson("/v1/link-templates", { key: t.key })).status).toBe(403);
    expect((await op.read(`/v1/link-templates/${slugs[0]}`)).status).toBe(200);
    const stranger = await operator(other);
    expect((await stranger.read(`/v1/link-templates/${slugs[0]}`)).status).toBe(404);
  });

  it("counts concurrent starts exactly and restarts today's count on a new UTC day", async () => {
    const t = await seedTenant();
    const op = await operator(t);
    const s = slug();
    await op.send("/v1/link-templates", { slug: s, name: "Busy", max_captures: 1 });
    const opened = await Promise.all(Array.from({ length: 8 }, () => open(t.slug, s)));
    expect(opened.every((o) => o.status === 303)).toBe(true);
    expect(new Set(opened.map((o) => o.location)).size).toBe(8);
    expect((await op.read(`/v1/link-templates/${s}`)).body).toMatchObject({ started_total: 8, started_today: 8 });

    await db().update(linkTemplates).set({ startedDay: "2000-01-01", startedToday: 7 }).where(and(eq(linkTemplates.tenantId, t.id), eq(linkTemplates.slug, s)));
    expect((await op.read(`/v1/link-templates/${s}`)).body).toMatchObject({ started_total: 8, started_today: 0 });
    await open(t.slug, s);
    expect((await op.read(`/v1/link-templates/${s}`)).body).toMatchObject({ started_total: 9, started_today: 1 });
    const row = await db().select().from(linkTemplates).where(and(eq(linkTemplates.tenantId, t.id), eq(linkTemplates.slug, s))).get();
    expect(row!.startedDay).toBe(utcDay(Date.now()));
  });

  it("reports a storage failure of the list as the spec's string-shaped error", async () => {
    const t = await seedTenant();
    const op = await operator(t);
    await env.DB.exec("ALTER TABLE link_templates RENAME TO link_templates_unavailable");
    try {
      const failed = await op.read("/v1/link-templates");
      expect(failed.status).toBe(503);
      expect(failed.body).toEqual({ error: "storage_unavailable" });
    } finally {
      await env.DB.exec("ALTER TABLE link_templates_unavailable RENAME TO link_templates");
    }
    expect((await op.read("/v1/link-templates")).status).toBe(200);
    // Other failures of the endpoint keep the standard body.
    const anonymous = await callJson("/v1/link-templates");
    expect(anonymous.body.error.code).toBe("unauthorized");
  });

  it("keeps the string-shaped error when the storage fails in the session check, before the list is read", async () => {
    const t = await seedTenant();
    const op = await operator(t);
    // The session check reads the user and their membership (auth/session.ts) before the handler runs.
    await env.DB.exec("ALTER TABLE memberships RENAME TO memberships_unavailable");
    try {
      const failed = await op.read("/v1/link-templates");
      expect(failed.status).toBe(503);
      expect(failed.body).toEqual({ error: "storage_unavailable" });
      // The quirk is the list's only: another route failing in the same check answers the standard body.
      const other = await op.read("/v1/api-keys");
      expect(other.status).toBe(503);
      expect(other.body.error.code).toBe("storage_unavailable");
    } finally {
      await env.DB.exec("ALTER TABLE memberships_unavailable RENAME TO memberships");
    }
    expect((await op.read("/v1/link-templates")).status).toBe(200);
    // A session the check refuses is still the standard 401 body.
    const refused = await callJson("/v1/link-templates", { headers: { Cookie: "svc_session=not-a-jwt" } });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("unauthorized");
  });
});
