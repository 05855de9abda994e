import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, count, eq, inArray, isNull, isNotNull, lt, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { beforeAll, describe, expect, it } from "vitest";
import { events, imageHashes, queueFailures, tenants, verifications } from "../../src/db/schema";
import { CONTRACT_DEFAULTS, normalizeConfig } from "../../src/model/verification/config";
import { DAY_MS, REDACT_CHUNK, RETENTION_ACTOR, SWEEP_PAGE, redactChunk, sweepTenant } from "../../src/domain/retention/retention";
import { newId } from "../../src/lib/ids";
import { verificationPrefix } from "../../src/storage/evidence";
import worker from "../../src/index";
import { callJson, createVerification, db, seedTenant, type TestTenant } from "../helpers/api";
import { captureInline } from "../helpers/capture";
import { dashboard, signIn } from "../helpers/session";
import { encodeJpeg, naturalScene } from "../helpers/synth";
import { waitFor } from "../helpers/wait";

/* Tenant retention: PATCH /v1/tenant/settings and the daily cron that redacts in bounded batches. */

describe("tenant settings", () => {
  let t: TestTenant;
  beforeAll(async () => {
    t = await seedTenant();
  });

  it("reads and sets retention_days through the dashboard session only", async () => {
    const { cookie } = await signIn(t.id);
    const name = (await db().select({ name: tenants.displayName }).from(tenants).where(eq(tenants.id, t.id)).get())!.name;
    expect((await callJson("/v1/tenant/settings", { headers: { Cookie: cookie } })).body).toEqual({ display_name: name, retention_days: null, share_reuse_index: false, ai_detection_provider: null });
    const set = await callJson("/v1/tenant/settings", { method: "PATCH", body: { retention_days: 90 }, headers: dashboard(cookie) });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ display_name: name, retention_days: 90, share_reuse_index: false, ai_detection_provider: null });
    expect((await callJson("/v1/tenant/settings", { headers: { Cookie: cookie } })).body).toEqual({ display_name: name, retention_days: 90, share_reuse_index: false, ai_detection_provider: null });
    const cleared = await callJson("/v1/tenant/settings", { method: "PATCH", body: { retention_days: null }, headers: dashboard(cookie) });
    expect(cleared.body).toEqual({ display_name: name, retention_days: null, share_reuse_index: false, ai_detection_provider: null });

    for (const bad of [{ retention_days: 0 }, { retention_days: 3651 }, { retention_days: 1.5 }, { retention_days: "30" }, {}, { retention_days: 30, other: 1 }]) {
      const res = await callJson("/v1/tenant/settings", { method: "PATCH", body: bad, headers: dashboard(cookie) });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
    expect((await callJson("/v1/tenant/settings", { method: "PATCH", body: { retention_days: 30 }, key: t.key })).status).toBe(403);
    expect((await callJson("/v1/tenant/settings", { key: t.key })).status).toBe(403);
  });
});

/** Inserts `n` bare verification rows created at `createdAt` (D1 allows 100 bound parameters per statement: one row each). */
async function seedRows(tenantId: string, n: number, createdAt: number): Promise<string[]> {
  const config = normalizeConfig({ max_captures: 1 }, CONTRACT_DEFAULTS);
  const ids: string[] = [];
  for (let i = 0; i < n; i += 100) {
    const rows = Array.from({ length: Math.min(100, n - i) }, () => {
      const id = newId("verification", createdAt);
      ids.push(id);
      return { id, tenantId, status: "expired" as const, version: 1, config, sealEnabled: true, createdAt, updatedAt: createdAt, expiresAt: createdAt + DAY_MS, capturesCount: 0 };
    });
    await db().batch(rows.map((r) => db().insert(verifications).values(r)) as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  }
  return ids;
}

async function unredacted(ids: string[]): Promise<number> {
  let left = 0;
  for (let i = 0; i < ids.length; i += 90) {
    const [row] = await db().select({ n: count() }).from(verifications).where(and(inArray(verifications.id, ids.slice(i, i + 90)), isNull(verifications.redactedAt)));
    left += row!.n;
  }
  return left;
}

async function runCron(scheduledTime: number): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime, cron: "17 3 * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
}

describe("the daily retention run", () => {
  it("redacts 5 000 expired verifications in bounded batches, leaves younger ones and other tenants alone, and drops their hashes", async () => {
    const now = Date.now();
    const a = await seedTenant("Retains 30 days");
    const b = await seedTenant("Keeps everything");
    await db().update(tenants).set({ retentionDays: 30 }).where(eq(tenants.id, a.id));

    // A real verification with a stored image and a hash in the reuse index, made 40 days old.
    const real = await createVerification(a.key, { max_captures: 1, metadata: { customer: "Jane Roe" } });
    const cap = await captureInline(real.id, encodeJpeg(naturalScene(160, 120, 77), 90));
    const captureId = cap.captures[0].id;
    await waitFor(async () => ((await db().select().from(imageHashes).where(eq(imageHashes.captureId, captureId))).length > 0 ? true : undefined), { what: "hash indexed" });
    await db().run(sql`UPDATE verifications SET created_at = ${now - 40 * DAY_MS}, version = version + 1 WHERE id = ${real.id}`);

    const due = await seedRows(a.id, 5000, now - 40 * DAY_MS);
    const young = await seedRows(a.id, 20, now - 10 * DAY_MS);
    const otherTenant = await seedRows(b.id, 20, now - 400 * DAY_MS);

    // One step reads one page: the last 540 due rows (keyset after the 4 460th) give 500 ids in
    // chunks, and the rest is left to the step it queues next.
    const sorted = [...due].sort();
    const step = await sweepTenant(env, db(), { type: "retention_sweep", v: 1, tenant_id: a.id, cutoff: now - 30 * DAY_MS, after: { created_at: now - 40 * DAY_MS, id: sorted[4459]! } });
    expect(step).toEqual({ queued: SWEEP_PAGE, more: true });
    expect(SWEEP_PAGE / REDACT_CHUNK).toBeLessThanOrEqual(99);

    await runCron(now);

    const dueLeft = async () =>
      (await db().select({ n: count() }).from(verifications).where(and(eq(verifications.tenantId, a.id), isNull(verifications.redactedAt), lt(verifications.createdAt, now - 30 * DAY_MS))))[0]!.n;
    await waitFor(async () => ((await dueLeft()) === 0 ? true : undefined), { what: "5 000 redactions", timeoutMs: 240_000, intervalMs: 1_000 });
    expect(await unredacted([...due, real.id])).toBe(0);
    expect(await unredacted(young)).toBe(20);
    expect(await unredacted(otherTenant)).toBe(20);

    // The real one went through its Durable Object (it was written minutes ago), the rest in batches.
    const tomb = (await callJson(`/v1/verifications/${real.id}`, { key: a.key })).body;
    expect(tomb.redacted_at).toBeDefined();
    expect(tomb.config.metadata).toBeUndefined();
    expect((await env.EVIDENCE.list({ prefix: verificationPrefix(real.id) })).objects).toEqual([]);
    expect(await db().select().from(imageHashes).where(eq(imageHashes.captureId, captureId))).toEqual([]);
    for (const id of [real.id, due[0]!, due[4999]!]) {
      const events = (await callJson(`/v1/verifications/${id}/events`, { key: a.key })).body.events;
      expect(events.filter((e: any) => e.event_name === "verification.redacted").map((e: any) => e.payload)).toEqual([{ by: RETENTION_ACTOR }]);
    }
    expect(await db().select().from(queueFailures).where(sql`${queueFailures.body} LIKE ${`%${a.id}%`}`)).toEqual([]);

    // A second run finds nothing left to do.
    const redactedCount = async () =>
      (await db().select({ n: count() }).from(verifications).where(and(eq(verifications.tenantId, a.id), isNotNull(verifications.redactedAt))))[0]!.n;
    const before = await redactedCount();
    await runCron(now);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await redactedCount()).toBe(before);
  }, 300_000);

  it("a sweep step honours the tenant's current setting: a longer period, or none, wins over the scheduled run", async () => {
    const t = await seedTenant("Changed its mind");
    const now = Date.now();
    await seedRows(t.id, 3, now - 10 * DAY_MS);
    const job = { type: "retention_sweep" as const, v: 1 as const, tenant_id: t.id, cutoff: now - DAY_MS };
    await db().update(tenants).set({ retentionDays: 30 }).where(eq(tenants.id, t.id));
    expect(await sweepTenant(env, db(), job, now)).toEqual({ queued: 0, more: false });
    await db().update(tenants).set({ retentionDays: null }).where(eq(tenants.id, t.id));
    expect(await sweepTenant(env, db(), job, now)).toEqual({ queued: 0, more: false });
  });

  it("a chunk retried after a crash that followed its batch write completes those rows: unsent events sent, prefixes emptied", async () => {
    const t = await seedTenant("Crashed mid-chunk");
    const ids = await seedRows(t.id, 3, Date.now() - 40 * DAY_MS);
    await redactChunk(env, db(), ids);
    expect(await unredacted(ids)).toBe(0);
    // The crash: the events were never sent and an object was still there.
    await db().update(events).set({ dispatchedAt: null }).where(and(inArray(events.verificationId, ids), eq(events.name, "verification.redacted")));
    await env.EVIDENCE.put(`${verificationPrefix(ids[0]!)}cap_left_behind`, new Uint8Array([1, 2, 3]));

    await redactChunk(env, db(), ids);
    const sent = await db().select().from(events).where(and(inArray(events.verificationId, ids), eq(events.name, "verification.redacted")));
    expect(sent).toHaveLength(3);
    expect(sent.every((e) => e.dispatchedAt !== null)).toBe(true);
    expect((await env.EVIDENCE.list({ prefix: verificationPrefix(ids[0]!) })).objects).toEqual([]);
  });
});
