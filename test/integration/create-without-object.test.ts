import { createExecutionContext, createScheduledController, runDurableObjectAlarm, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { events, verifications } from "../../src/db/schema";
import { eventRow, newVerificationRow } from "../../src/db/verifications";
import { verificationObject } from "../../src/durable-objects/verification-client";
import type { VerificationObject } from "../../src/durable-objects/verification-object";
import { CONTRACT_DEFAULTS, normalizeConfig } from "../../src/model/verification/config";
import { CERTIFIED_EVENT_NAMES } from "../../src/domain/certificates/events";
import { NOTIFY_EMAIL_EVENT_NAMES, TRIAL_VERDICT_EVENT_NAMES } from "../../src/domain/notifications/subscribers";
import { WEBHOOK_EVENT_NAMES } from "../../src/domain/webhooks/events";
import { createVerification as createInWorker } from "../../src/domain/verification/service";
import { ARM_AHEAD_MS, ARMS_PER_PASS, ARMS_PER_TENANT, eachOpenExpiring, OVERDUE_GRACE_MS, SWEEP_PAGE, UNSENT_GRACE_MS } from "../../src/domain/verification/sweep";
import { newId } from "../../src/lib/ids";
import { MINUTELY_CRON } from "../../src/scheduled";
import worker from "../../src/index";
import { callJson, createVerification, db, eventually, seedTenant, type TestTenant } from "../helpers/api";
import { persisted } from "../helpers/snapshot";

/*
 * The Worker creates a verification without its Durable Object (domain/verification/service.ts):
 * a capture-flow call arms the object; the events consumer arms it at once only when it expires within
 * ARM_AHEAD_MS; otherwise the minutely sweep arms it in the minute before its expiry, and arms any
 * overdue one nothing armed. Every guarantee create used to get from the object is
 * checked here against the real D1, queues and objects.
 */

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant();
});

const alarmOf = (id: string) => runInDurableObject(verificationObject(env, id), (_i: VerificationObject, state) => state.storage.getAlarm());

async function runMinutely(scheduledTime: number): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime, cron: MINUTELY_CRON }), env, ctx);
  await waitOnExecutionContext(ctx);
}

/** What the Worker's create commits, written directly: a verification nobody published or armed. */
async function unarmedVerification(createdAt: number, expiresAt: number, tenantId = t.id): Promise<string> {
  const id = newId("verification", createdAt);
  const row = newVerificationRow({ id, tenantId, config: normalizeConfig({ max_captures: 2 }, CONTRACT_DEFAULTS), sealEnabled: true, createdAt, expiresAt });
  await db().batch([db().insert(verifications).values(row), db().insert(events).values(eventRow(id, t.id, { name: "verification.created" }, createdAt))]);
  return id;
}

describe("create without the Durable Object on the request path", () => {
  it("a created verification expires by its own alarm, with no capture-flow call at all", async () => {
    const v = await createVerification(t.key, { max_captures: 2, expires_in_seconds: 2 });
    // Nothing but the events consumer touches the object: it arms the alarm at expires_at.
    expect(await eventually(async () => (await alarmOf(v.id)) === Date.parse(v.expires_at), "alarm armed by the consumer")).toBe(true);
    const p = await eventually(async () => {
      const s = await persisted(v.id);
      return s.row.status === "expired" ? s : null;
    }, "expired by the alarm");
    expect(p.row.version).toBe(2);
    expect(p.events.map((e) => e.name)).toEqual(["verification.created", "verification.expired"]);
    // The consumer marked the created event dispatched; the object published and marked the expiry.
    await eventually(async () => (await persisted(v.id)).events.every((e) => e.dispatchedAt !== null), "events dispatched");
  });

  it("one with time to spare gets no object at creation: the sweep arms it in the run before its expiry, alarm at expires_at", async () => {
    const v = await createVerification(t.key, { max_captures: 2, expires_in_seconds: 3600 });
    const expiresAt = Date.parse(v.expires_at);
    // Its created event has no subscriber (no webhook): recorded dispatched, and the object left alone.
    await eventually(async () => (await persisted(v.id)).events.every((e) => e.dispatchedAt !== null), "the created event dispatched");
    expect(await alarmOf(v.id)).toBeNull();
    // Two runs before: its expiry is past this run's window (now + 1 min, now + 2 min].
    await runMinutely(expiresAt - ARM_AHEAD_MS - 30_000);
    expect(await alarmOf(v.id)).toBeNull();
    // The run before it: armed for exactly its expiry, which its own alarm then carries out.
    await runMinutely(expiresAt - ARM_AHEAD_MS + 30_000);
    expect(await alarmOf(v.id)).toBe(expiresAt);
    expect((await persisted(v.id)).row.status).toBe("pending");
  });

  it("the first capture-flow call finds the Worker's row and arms the alarm, whoever comes first", async () => {
    const v = await createVerification(t.key, {
      steps: [
        { key: "front", type: "image", description: "Front", min: 1, max: 1 },
        { key: "vin", type: "text", description: "VIN", required: true, validation: { max_length: 17, format: "alphanumeric_id" } },
      ],
    });
    const answered = await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "vin", value: "WVWZZZ1JZ3W386752" } });
    expect(answered.status).toBe(200);
    const p = await persisted(v.id);
    expect(p.row.version).toBe(2);
    expect(p.row.sealHash).toMatch(/^[0-9a-f]{64}$/);
    expect(p.answers.map((a) => a.value)).toEqual(["WVWZZZ1JZ3W386752"]);
    // Armed: first for marking the answer's published event (no later commit comes), then for the expiry.
    const first = await alarmOf(v.id);
    expect(first).not.toBeNull();
    expect(first!).toBeLessThanOrEqual(Date.parse(v.expires_at));
    expect(await runDurableObjectAlarm(verificationObject(env, v.id))).toBe(true);
    expect(await alarmOf(v.id)).toBe(Date.parse(v.expires_at));
  });

  it("a verification nothing armed still expires: the minutely sweep arms it and its alarm expires it", async () => {
    const now = Date.now();
    const id = await unarmedVerification(now - 5 * 60_000, now - OVERDUE_GRACE_MS - 1_000);
    const fresh = await unarmedVerification(now, now - 1_000); // overdue by less than the grace: left to its alarm
    expect(await alarmOf(id)).toBeNull();
    await runMinutely(now);
    // Armed in the past, the alarm fires at once.
    const p = await eventually(async () => {
      const s = await persisted(id);
      return s.row.status === "expired" ? s : null;
    }, "expired after the sweep");
    expect(p.events.map((e) => e.name)).toEqual(["verification.created", "verification.expired"]);
    expect(await alarmOf(fresh)).toBeNull();
    expect((await persisted(fresh)).row.status).toBe("pending");
  });

  it("the sweep publishes a created event nobody published, once it is older than the grace", async () => {
    const now = Date.now();
    const id = await unarmedVerification(now - UNSENT_GRACE_MS - 60_000, now + 3_600_000);
    await runMinutely(now);
    const p = await eventually(async () => {
      const s = await persisted(id);
      return s.events[0]!.dispatchedAt !== null ? s : null;
    }, "created event re-driven");
    expect(p.row.status).toBe("pending");
    // Re-driven through the object, which is armed for the expiry now.
    expect(await alarmOf(id)).toBe(now + 3_600_000);
  });

  it("the sweep re-drives an unsent created event also when a capture-flow call armed the object first", async () => {
    const now = Date.now();
    const id = await unarmedVerification(now - UNSENT_GRACE_MS - 60_000, now + 3_600_000);
    const progress = await callJson(`/v1/verifications/${id}/progress`, {
      body: { schema_version: 1, kind: "step_reached", step: "landing", elapsed_ms: 10 },
    });
    expect(progress.status).toBe(204);
    expect(await alarmOf(id)).toBe(now + 3_600_000);
    expect((await persisted(id)).events[0]!.dispatchedAt).toBeNull();
    await runMinutely(now);
    await eventually(async () => (await persisted(id)).events[0]!.dispatchedAt !== null, "created event re-driven");
  });

  it("a failed publish hands the created event to the object, whose alarm re-drives it", async () => {
    const failingQueue = { sendBatch: () => Promise.reject(new Error("queue unavailable (injected)")) };
    // Expiring within ARM_AHEAD_MS: its created event has a subscriber (the arming), so it is published.
    const outcome = await createInWorker({ ...env, EVENTS_QUEUE: failingQueue } as unknown as Env, db(), { tenantId: t.id, input: { max_captures: 2, expires_in_seconds: 90 } as never });
    expect(outcome.kind).toBe("created");
    const id = outcome.kind === "created" ? outcome.record.row.id : "";
    let p = await persisted(id);
    expect(p.events.map((e) => [e.name, e.dispatchedAt])).toEqual([["verification.created", null]]);
    const alarmAt = await alarmOf(id);
    expect(alarmAt).not.toBeNull();
    expect(alarmAt!).toBeLessThan(Date.now() + 60_000);
    expect(await runDurableObjectAlarm(verificationObject(env, id))).toBe(true);
    p = await persisted(id);
    expect(p.events[0]!.dispatchedAt).not.toBeNull();
    expect(await alarmOf(id)).toBe(p.row.expiresAt);
  });

  it("a created event nobody waits for (no webhook, an expiry the sweep will reach) is recorded dispatched and never sent", async () => {
    const sent: unknown[] = [];
    const recordingQueue = { sendBatch: (messages: unknown[]) => void sent.push(...messages) };
    const inWorker = (input: object) => createInWorker({ ...env, EVENTS_QUEUE: recordingQueue } as unknown as Env, db(), { tenantId: t.id, input: input as never, localRequest: true });
    const quiet = await inWorker({ max_captures: 2, expires_in_seconds: 3600 });
    const id = quiet.kind === "created" ? quiet.record.row.id : "";
    const p = await persisted(id);
    expect(p.events.map((e) => [e.name, e.dispatchedAt])).toEqual([["verification.created", p.row.createdAt]]);
    expect(sent).toEqual([]);
    // One with a webhook, or expiring before the sweep's window, has a subscriber: its event goes out.
    await inWorker({ max_captures: 2, expires_in_seconds: 3600, webhook_url: "http://127.0.0.1:9/hook" });
    await inWorker({ max_captures: 2, expires_in_seconds: 90 });
    expect(sent.map((m) => (m as { body: { event: { name: string } } }).body.event.name)).toEqual(["verification.created", "verification.created"]);
    // The sweep's unsent backstop leaves the recorded one alone.
    await runMinutely(Date.now() + UNSENT_GRACE_MS + 60_000);
    expect((await persisted(id)).events).toEqual(p.events);
  });

  it("createdHasSubscribers knows every subscriber of verification.created: its webhook and the arming, nothing else", () => {
    // A failure here means the event gained a subscriber: add it to createdHasSubscribers (service.ts).
    expect(WEBHOOK_EVENT_NAMES).toContain("verification.created");
    for (const names of [CERTIFIED_EVENT_NAMES, NOTIFY_EMAIL_EVENT_NAMES, TRIAL_VERDICT_EVENT_NAMES]) expect(names).not.toContain("verification.created");
  });

  it("verifications whose object keeps failing to arm do not hide the overdue ones behind them", async () => {
    const now = Date.now();
    // A full page of overdue rows that fail on every arm (a row the object cannot read), all due before `behind`.
    const broken = await Promise.all(Array.from({ length: SWEEP_PAGE }, (_, i) => unarmedVerification(now - 20 * 60_000, now - 10 * 60_000 - i)));
    await env.DB.batch(broken.map((id) => env.DB.prepare("UPDATE verifications SET progress = '{', version = version + 1 WHERE id = ?").bind(id)));
    const behind = await unarmedVerification(now - 5 * 60_000, now - OVERDUE_GRACE_MS - 1_000);
    await runMinutely(now);
    await eventually(async () => (await persisted(behind)).row.status === "expired", "the row behind the failing page expired");
    // The failing rows are still overdue and tried again next minute, not lost.
    const still = await env.DB.prepare("SELECT status FROM verifications WHERE id = ?").bind(broken[0]).first<{ status: string }>();
    expect(still?.status).toBe("pending");
  });

  // Probe of 2026-12-06: the expiry passes took the earliest 2 000 of the window whoever's they were, so
  // one tenant's flood of expiries held back every other tenant's.
  it("one tenant's flood of expiries takes its share of a pass and no more: another tenant's expiry in the same window is armed", async () => {
    const flood = await seedTenant("Flood");
    const quiet = await seedTenant("Quiet");
    const at = Date.now() + 30 * 24 * 3_600_000; // a window of its own: no other test's rows
    const config = normalizeConfig({ max_captures: 2 }, CONTRACT_DEFAULTS);
    const rows = Array.from({ length: ARMS_PER_PASS + 100 }, (_, i) =>
      newVerificationRow({ id: newId("verification"), tenantId: flood.id, config, sealEnabled: true, createdAt: Date.now(), expiresAt: at + i }),
    );
    for (let i = 0; i < rows.length; i += 100) await db().batch(rows.slice(i, i + 100).map((row) => db().insert(verifications).values(row)) as [never, ...never[]]);
    const late = await unarmedVerification(Date.now(), at + 50_000, quiet.id);
    const seen: string[] = [];
    const n = await eachOpenExpiring(db(), { after: at - 1, until: at + 60_000 }, async (ids) => void seen.push(...ids));
    expect(seen).toContain(late);
    expect(n).toBe(ARMS_PER_TENANT + 1);
    expect(seen.slice(0, ARMS_PER_TENANT)).toEqual(rows.slice(0, ARMS_PER_TENANT).map((r) => r.id)); // the flood's earliest first
  });

  it("concurrent creates with one Idempotency-Key write one verification and one created event", async () => {
    const tenant = await seedTenant("Race");
    const headers = { "Idempotency-Key": `race-${crypto.randomUUID()}` };
    const results = await Promise.all(Array.from({ length: 8 }, () => callJson("/v1/verifications", { key: tenant.key, body: { max_captures: 1 }, headers })));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    const [rows] = await db().select({ n: count() }).from(verifications).where(eq(verifications.tenantId, tenant.id));
    const [created] = await db().select({ n: count() }).from(events).where(eq(events.tenantId, tenant.id));
    expect(rows!.n).toBe(1);
    expect(created!.n).toBe(1);
  });
});
