import { createExecutionContext, createMessageBatch, createScheduledController, getQueueResult, runDurableObjectAlarm, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq, inArray } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { captureAnalyses, queueFailures, tenants, webhookDeliveries } from "../../src/db/schema";
import type { VerificationObject } from "../../src/durable-objects/verification-object";
import { verificationObject } from "../../src/durable-objects/verification-client";
import { Outbox } from "../../src/durable-objects/verification/outbox";
import { markDispatched } from "../../src/db/verifications";
import { sweepUnarmed, UNSENT_GRACE_MS } from "../../src/domain/verification/sweep";
import { EVENT_DEAD_LETTERS_REPLAYED } from "../../src/queues/dead-letter.consumer";
import { createVerification as createInWorker } from "../../src/domain/verification/service";
import { FAIL_AFTER_MS, REDRIVE_EVERY_MS, STRAGGLER_GRACE_MS, sweepStragglers } from "../../src/domain/verification/stragglers";
import { attemptDelivery } from "../../src/domain/webhooks/deliveries";
import { sweepStuckDeliveries } from "../../src/domain/webhooks/stuck";
import { newId } from "../../src/lib/ids";
import { PRODUCTION_BASE_SECONDS, WEBHOOK_MAX_RETRIES } from "../../src/domain/webhooks/schedule";
import { toDomainEvent } from "../../src/events/publisher";
import type { QueueMessage } from "../../src/events/messages";
import worker from "../../src/index";
import { handleQueue } from "../../src/queues";
import { handleAnalysisQueue } from "../../src/queues/analysis.consumer";
import { MINUTELY_CRON } from "../../src/scheduled";
import { verificationPrefix } from "../../src/storage/evidence";
import { createVerification, db, eventually, seedTenant, type TestTenant } from "../helpers/api";
import { hasVerdict, inlineCapture, pollVerification } from "../helpers/capture";
import { moduleContext } from "../helpers/object-context";
import { persisted } from "../helpers/snapshot";
import { encodeJpeg, naturalScene } from "../helpers/synth";
import { received, receiver, recover } from "../helpers/webhooks";

/*
 * Faults end somewhere known. Each test injects one fault through a seam the code has (the
 * verification object's `publisher`, a binding of the env a consumer runs with, the clock of the
 * sweep and of a delivery attempt) into the real local D1, R2, Durable Objects and queues, and checks
 * where the verification ends (completed, failed or expired), that each capture is analysed once,
 * and that every webhook is delivered once per id. ARCHITECTURE.md "What happens on each fault".
 */

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant("Faults");
});
afterEach(() => {
  vi.useRealTimers();
});

type Body = Record<string, unknown>;
let seed = 7100;

/**
 * From now on the verification's object keeps its events instead of sending them (the send
 * "succeeds"): the test decides what becomes of each, as the queue would have.
 */
async function holdEvents(id: string): Promise<Body[]> {
  const held: Body[] = [];
  await runInDurableObject(verificationObject(env, id), (instance: VerificationObject) => {
    instance.publisher = {
      async publish(events, hints = {}) {
        held.push(...events.map((e) => ({ type: "domain_event", v: 1, event: toDomainEvent(e), ...hints })));
      },
    };
  });
  return held;
}

/** The object's publisher back to the events queue. */
async function releaseEvents(id: string, sent: string[] = []): Promise<void> {
  await runInDurableObject(verificationObject(env, id), (instance: VerificationObject) => {
    instance.publisher = {
      async publish(events, hints = {}) {
        sent.push(...events.map((e) => e.name));
        await env.EVENTS_QUEUE.sendBatch(events.map((e) => ({ body: { type: "domain_event", v: 1, event: toDomainEvent(e), ...hints } as QueueMessage })));
      },
    };
  });
}

/** A queue binding that accepts and keeps what is sent (the message never reaches a consumer). */
function keptQueue(): { queue: Queue; bodies: Body[] } {
  const bodies: Body[] = [];
  const queue = {
    async send(body: Body) {
      bodies.push(body);
    },
    async sendBatch(messages: Iterable<MessageSendRequest>) {
      for (const m of messages) bodies.push(m.body as Body);
    },
  };
  return { queue: queue as unknown as Queue, bodies };
}

/** A queue binding that refuses every send; `attempted` keeps what was offered to it. */
function refusingQueue(): Queue & { attempted: Body[] } {
  const attempted: Body[] = [];
  const refuse = async (bodies: Body[]) => {
    attempted.push(...bodies);
    throw new Error("queue send refused (injected)");
  };
  return {
    attempted,
    send: (body: Body) => refuse([body]),
    sendBatch: (messages: Iterable<MessageSendRequest>) => refuse([...messages].map((m) => m.body as Body)),
  } as unknown as Queue & { attempted: Body[] };
}

/** Both analysis lanes replaced by `queue`. */
const lanesOf = (queue: Queue) => ({ ANALYSIS_QUEUE: queue, ANALYSIS_BULK_QUEUE: queue });

/** One delivery of `bodies` by a queue to the Worker that consumes it, with `overrides` in its env. */
async function deliver(queueName: string, bodies: unknown[], overrides: Partial<Env> = {}, options: { attempts?: number; ids?: string[] } = {}) {
  const batch = createMessageBatch(
    queueName,
    bodies.map((body, i) => ({ id: options.ids?.[i] ?? crypto.randomUUID(), timestamp: new Date(), attempts: options.attempts ?? 1, body })),
  );
  const ctx = createExecutionContext();
  await (queueName.includes("analysis") ? handleAnalysisQueue : handleQueue)(batch, { ...env, ...overrides }, ctx);
  return getQueueResult(batch, ctx);
}

/**
 * The real D1 binding, except for the statements `matches` picks (by their SQL): a batch holding one
 * fails (or, with `gate`, waits for it and then runs); with `everything`, every statement fails.
 */
function d1Failing(options: { matches?: RegExp; gate?: Promise<void>; everything?: boolean }): D1Database {
  const sqlOf = new WeakMap<object, string>();
  const hit = (statements: D1PreparedStatement[]) => statements.some((s) => options.matches?.test(sqlOf.get(s) ?? ""));
  const wrap = (statement: D1PreparedStatement, sql: string): D1PreparedStatement => {
    sqlOf.set(statement, sql);
    const bind = statement.bind.bind(statement);
    return Object.assign(statement, { bind: (...values: unknown[]) => wrap(bind(...values), sql) });
  };
  return new Proxy(env.DB, {
    get(target, prop) {
      if (prop === "prepare") {
        return (sql: string) => {
          if (options.everything) throw new Error("D1 unavailable (injected)");
          return wrap(target.prepare(sql), sql);
        };
      }
      if (prop === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          if (hit(statements)) {
            if (!options.gate) throw new Error("D1 write failed (injected)");
            await options.gate;
          }
          return target.batch(statements);
        };
      }
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The analysis result's write (db/analyses.ts saveAnalysisThenSettling). */
const ANALYSIS_WRITE = /insert into "capture_analyses"/i;

/** An R2 binding whose reads fail. */
function r2ReadsFailing(): R2Bucket {
  return new Proxy(env.EVIDENCE, {
    get(target, prop) {
      if (prop === "get") return () => Promise.reject(new Error("R2 read failed (injected)"));
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const jobsOf = (bodies: Body[]) => bodies.filter((b) => typeof b.type === "string" && b.type !== "domain_event");
const analysesOfIds = (ids: string[]) => db().select().from(captureAnalyses).where(inArray(captureAnalyses.verificationId, ids));

async function eventNames(id: string): Promise<string[]> {
  return (await persisted(id)).events.map((e) => e.name);
}

/** A one-capture verification whose capture is in and whose events the test holds. */
async function capturedAndHeld(options: Body = {}) {
  const v = await createVerification(t.key, { max_captures: 1, ...options });
  const held = await holdEvents(v.id);
  expect((await inlineCapture(v.id, {}, encodeJpeg(naturalScene(160, 120, (seed += 1))))).status).toBe(201);
  const readyAt = (await persisted(v.id)).row.readyAt!;
  expect(readyAt).not.toBeNull();
  expect(held.map((b) => (b.event as { name: string }).name)).toEqual(["verification.capture.persisted", "verification.ready"]);
  return { v, held, readyAt };
}

describe("a queue send refused", () => {
  it("by the events queue (the object's publish): the alarm re-drives; one analysis, one verdict, each webhook once", async () => {
    const r = receiver();
    const v = await createVerification(t.key, { max_captures: 1, webhook_url: r.url });
    await eventually(async () => (await persisted(v.id)).events[0]!.dispatchedAt !== null, "the created event consumed");
    await runInDurableObject(verificationObject(env, v.id), (instance: VerificationObject) => {
      instance.publisher = {
        async publish() {
          throw new Error("queue send refused (injected)");
        },
      };
    });
    expect((await inlineCapture(v.id)).status).toBe(201);
    expect((await persisted(v.id)).events.filter((e) => e.dispatchedAt === null).map((e) => e.name)).toEqual(["verification.capture.persisted", "verification.ready"]);
    const sent: string[] = [];
    await releaseEvents(v.id, sent);
    expect(await runDurableObjectAlarm(verificationObject(env, v.id))).toBe(true);
    expect(sent).toEqual(["verification.capture.persisted", "verification.ready"]);
    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.status).toBe("completed");
    expect(await analysesOfIds([v.id])).toHaveLength(1);
    expect((await eventNames(v.id)).filter((n) => n === "verification.completed")).toHaveLength(1);
    const hits = await eventually(async () => {
      const got = await received(r.id);
      return got.length >= 3 ? got : null;
    }, "three webhooks");
    expect(hits.map((h) => JSON.parse(h.body).type).sort()).toEqual(["verification.capture.persisted", "verification.completed", "verification.created"]);
    expect(new Set(hits.map((h) => h.headers["webhook-id"])).size).toBe(3);
  });

  it("by the analysis queue (the events consumer's send): the events come again and each job goes out once", async () => {
    const { v, held } = await capturedAndHeld();
    const ids = held.map(() => crypto.randomUUID());
    const refused = await deliver("vfy-events-local", held, lanesOf(refusingQueue()), { ids });
    expect(refused.explicitAcks).toEqual([]);
    expect(refused.retryMessages.map((m) => m.msgId).sort()).toEqual([...ids].sort());
    // The queue's retry, the analysis queue back.
    const retried = await deliver("vfy-events-local", held, {}, { ids, attempts: 2 });
    expect(retried.explicitAcks.sort()).toEqual([...ids].sort());
    expect((await pollVerification(t.key, v.id, hasVerdict)).status).toBe("completed");
    expect(await analysesOfIds([v.id])).toHaveLength(1);
  });

  it("by the webhooks queue: the event comes again, its delivery is enqueued once and delivered once", async () => {
    const r = receiver();
    const v = await createVerification(t.key, { max_captures: 1, webhook_url: r.url });
    const held = await holdEvents(v.id);
    expect((await inlineCapture(v.id)).status).toBe(201);
    const persistedEvent = held[0]!;
    const first = await deliver("vfy-events-local", [persistedEvent], { WEBHOOKS_QUEUE: refusingQueue(), ...lanesOf(keptQueue().queue) });
    expect(first.retryMessages).toHaveLength(1);
    const [pending] = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, (persistedEvent.event as { id: string }).id));
    expect(pending).toMatchObject({ status: "pending", attempts: 0, nextAttemptAt: null });
    const again = await deliver("vfy-events-local", [persistedEvent], {}, { attempts: 2 });
    expect(again.explicitAcks).toHaveLength(1);
    const hits = await eventually(async () => {
      const got = (await received(r.id)).filter((h) => JSON.parse(h.body).type === "verification.capture.persisted");
      return got.length > 0 ? got : null;
    }, "the capture's webhook");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await received(r.id)).filter((h) => JSON.parse(h.body).type === "verification.capture.persisted")).toHaveLength(1);
    expect(hits[0]!.headers["webhook-id"]).toBe((persistedEvent.event as { id: string }).id);
  });
});

describe("storage failing under the analysis", () => {
  it("a D1 write failing: the job is retried; one analysis, one verdict", async () => {
    const { v, held } = await capturedAndHeld();
    const kept = keptQueue();
    await deliver("vfy-events-local", held, lanesOf(kept.queue));
    const jobs = jobsOf(kept.bodies);
    expect(jobs.map((j) => j.type)).toEqual(["analyze_capture", "settle_verification"]);
    // The batch that writes the analysis result fails.
    const failed = await deliver("vfy-analysis-local", [jobs[0]], { DB: d1Failing({ matches: ANALYSIS_WRITE }) });
    expect(failed.retryMessages).toHaveLength(1);
    expect(await analysesOfIds([v.id])).toEqual([]);
    const retried = await deliver("vfy-analysis-local", [jobs[0]], {}, { attempts: 2 });
    expect(retried.explicitAcks).toHaveLength(1);
    expect((await pollVerification(t.key, v.id, hasVerdict)).status).toBe("completed");
    expect(await analysesOfIds([v.id])).toHaveLength(1);
    // The thumbnail the failed try wrote was written again, under the same key: nothing orphaned.
    const p = await persisted(v.id);
    expect(p.objectKeys).toEqual([p.captures[0]!.imageKey, `${verificationPrefix(v.id)}${p.captures[0]!.id}.thumb.jpg`].sort());
  });

  it("an R2 read failing: retried; after every retry the dead letter fails the verification", async () => {
    const recovering = await capturedAndHeld();
    const keptA = keptQueue();
    await deliver("vfy-events-local", recovering.held, lanesOf(keptA.queue));
    const [jobA] = jobsOf(keptA.bodies);
    expect((await deliver("vfy-analysis-local", [jobA], { EVIDENCE: r2ReadsFailing() })).retryMessages).toHaveLength(1);
    expect((await deliver("vfy-analysis-local", [jobA], {}, { attempts: 2 })).explicitAcks).toHaveLength(1);
    expect((await pollVerification(t.key, recovering.v.id, hasVerdict)).status).toBe("completed");

    const lasting = await capturedAndHeld();
    const keptB = keptQueue();
    await deliver("vfy-events-local", lasting.held, lanesOf(keptB.queue));
    const [jobB] = jobsOf(keptB.bodies);
    for (let attempt = 1; attempt <= 6; attempt += 1) {
      expect((await deliver("vfy-analysis-local", [jobB], { EVIDENCE: r2ReadsFailing() }, { attempts: attempt })).retryMessages).toHaveLength(1);
    }
    // max_retries exhausted: Queues moves it to the dead-letter queue.
    expect((await deliver("vfy-dead-letter-local", [jobB])).explicitAcks).toHaveLength(1);
    const failed = await pollVerification(t.key, lasting.v.id, (x) => x.status === "failed");
    expect(failed.failure_reason).toMatch(/^analysis_failed/);
  });
});

describe("the analysis Worker killed mid-job", () => {
  it("the redelivered job analyses the capture once; the killed run, if it ever resumes, changes nothing", async () => {
    const { v, held } = await capturedAndHeld();
    const kept = keptQueue();
    await deliver("vfy-events-local", held, lanesOf(kept.queue));
    const [job] = jobsOf(kept.bodies);
    // The first run stops dead before its write (the thumbnail is in R2): no ack, no retry.
    let resume!: () => void;
    const gate = new Promise<void>((resolve) => (resume = resolve));
    const batch = createMessageBatch("vfy-analysis-local", [{ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body: job }]);
    const zombie = handleAnalysisQueue(batch, { ...env, DB: d1Failing({ matches: ANALYSIS_WRITE, gate }) }, createExecutionContext());
    await eventually(async () => (await persisted(v.id)).objectKeys.length === 2, "the killed run's thumbnail");
    // The queue delivers the message again (its visibility lapsed).
    expect((await deliver("vfy-analysis-local", [job], {}, { attempts: 2 })).explicitAcks).toHaveLength(1);
    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.status).toBe("completed");
    resume();
    await zombie;
    expect(await analysesOfIds([v.id])).toHaveLength(1);
    expect((await eventNames(v.id)).filter((n) => n === "verification.completed")).toHaveLength(1);
    expect((await pollVerification(t.key, v.id, hasVerdict)).verdict).toEqual(done.verdict);
  });
});

describe("what a queue loses, the straggler sweep re-drives", () => {
  it("an events message dead-lettered after its retries: recorded, and its analysis re-driven by the sweep", async () => {
    const { v, held, readyAt } = await capturedAndHeld();
    const ids = held.map(() => crypto.randomUUID());
    const dead = await deliver("vfy-dead-letter-local", held, {}, { ids });
    expect(dead.explicitAcks).toHaveLength(2);
    const recorded = await db().select().from(queueFailures).where(inArray(queueFailures.messageId, ids));
    expect(recorded).toHaveLength(2);
    // Once the grace period is over, the sweep sends the missing analysis again.
    const swept = await sweepStragglers(env, db(), readyAt + STRAGGLER_GRACE_MS);
    expect(swept.redriven).toBeGreaterThanOrEqual(1);
    expect(swept.errors).toBe(0);
    expect((await pollVerification(t.key, v.id, hasVerdict)).status).toBe("completed");
    expect(await analysesOfIds([v.id])).toHaveLength(1);
  });

  it("a domain event dead-lettered after its retries goes back to its outbox: the sweep re-drives it and its webhook is delivered once; after 3 dead letters it is left for a person", async () => {
    const r = receiver();
    const v = await createVerification(t.key, { max_captures: 1, webhook_url: r.url });
    const held = await holdEvents(v.id);
    expect((await inlineCapture(v.id, {}, encodeJpeg(naturalScene(160, 120, (seed += 1))))).status).toBe(201);
    const named = (name: string) => held.find((b) => (b.event as { name: string }).name === name);
    await eventually(async () => named("verification.ready"), "the ready event");
    await deliver("vfy-events-local", held.splice(0));
    const completed = await eventually(async () => named("verification.completed"), "the completed event");
    const eventId = (completed.event as { id: string }).id;
    // The object marks what it published (its alarm does it a minute later; the events consumer's
    // retries take far longer): the event is dispatched when its dead letter arrives.
    await runInDurableObject(verificationObject(env, v.id), (_instance: VerificationObject, state) => new Outbox(moduleContext(state.storage).cx).markPublished());
    await releaseEvents(v.id);
    const dispatchedAt = async () => (await persisted(v.id)).events.find((e) => e.id === eventId)!.dispatchedAt;
    expect(await dispatchedAt()).not.toBeNull();

    // The events consumer failed on every retry: the queue hands it to the dead-letter consumer.
    expect((await deliver("vfy-dead-letter-local", [completed])).explicitAcks).toHaveLength(1);
    expect(await dispatchedAt()).toBeNull();
    const swept = await sweepUnarmed(env, db(), Date.now() + UNSENT_GRACE_MS);
    expect(swept.unsent).toBeGreaterThanOrEqual(1);
    const hits = await eventually(async () => {
      const got = (await received(r.id)).filter((h) => JSON.parse(h.body).type === "verification.completed");
      return got.length > 0 ? got : null;
    }, "the completed webhook");
    expect(hits).toHaveLength(1);
    await eventually(async () => ((await dispatchedAt()) !== null ? true : null), "re-dispatched");

    // Dead-lettered again and again: back to the outbox up to EVENT_DEAD_LETTERS_REPLAYED times, then left.
    for (let n = 2; n <= EVENT_DEAD_LETTERS_REPLAYED + 1; n += 1) {
      await markDispatched(db(), [eventId], Date.now());
      await deliver("vfy-dead-letter-local", [completed]);
      if (n <= EVENT_DEAD_LETTERS_REPLAYED) expect(await dispatchedAt(), `dead letter ${n}`).toBeNull();
      else expect(await dispatchedAt(), `dead letter ${n}`).not.toBeNull();
    }
    const deliveries = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, eventId));
    expect(deliveries).toHaveLength(1);
  });

  it("an analysis job lost after the events consumer sent it: the minutely cron re-drives it and logs the count", async () => {
    const { v, held, readyAt } = await capturedAndHeld();
    const lost = keptQueue();
    expect((await deliver("vfy-events-local", held, lanesOf(lost.queue))).explicitAcks).toHaveLength(2);
    expect(jobsOf(lost.bodies)).toHaveLength(2);
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line));
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: readyAt + STRAGGLER_GRACE_MS + 30_000, cron: MINUTELY_CRON }), env, ctx);
    await waitOnExecutionContext(ctx);
    vi.restoreAllMocks();
    const line = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === "straggler sweep: re-drove late verifications");
    expect(line).toBeDefined();
    expect(line!.redriven).toBeGreaterThanOrEqual(1);
    expect(line!.jobs).toBeGreaterThanOrEqual(2);
    expect((await pollVerification(t.key, v.id, hasVerdict)).status).toBe("completed");
    expect(await analysesOfIds([v.id])).toHaveLength(1);
  });

  it("a malformed message is recorded and acked, never retried forever; what it stood for is re-driven", async () => {
    const { v, held, readyAt } = await capturedAndHeld();
    const persistedEvent = held[0]!.event as { payload: { capture_id: string } };
    // The capture's job arrives without its capture id; the events arrive mangled.
    const mangled = { type: "analyze_capture", v: 1, verification_id: v.id };
    const id = crypto.randomUUID();
    const analysis = await deliver("vfy-analysis-local", [mangled], {}, { ids: [id] });
    expect(analysis.explicitAcks).toEqual([id]);
    const eventsId = crypto.randomUUID();
    const events = await deliver("vfy-events-local", [{ type: "domain_event", v: 2, event: held[0]!.event }], {}, { ids: [eventsId] });
    expect(events.explicitAcks).toEqual([eventsId]);
    const recorded = await db().select().from(queueFailures).where(inArray(queueFailures.messageId, [id, eventsId]));
    expect(recorded.map((r) => r.body.startsWith("malformed: "))).toEqual([true, true]);
    expect(recorded.find((r) => r.messageId === id)!.body).toContain(v.id);

    await sweepStragglers(env, db(), readyAt + STRAGGLER_GRACE_MS);
    expect((await pollVerification(t.key, v.id, hasVerdict)).status).toBe("completed");
    const [row] = await analysesOfIds([v.id]);
    expect(row!.captureId).toBe(persistedEvent.payload.capture_id);
  });

  it("the dead-letter consumer failing too, and every re-drive lost or refused: failed by its deadline, the capture's analysis recorded as failed", async () => {
    const { v, held, readyAt } = await capturedAndHeld();
    const kept = keptQueue();
    await deliver("vfy-events-local", held, lanesOf(kept.queue));
    const [job] = jobsOf(kept.bodies);
    // The analysis job exhausted its retries; the dead-letter consumer cannot write either, for all of its own.
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const dead = await deliver("vfy-dead-letter-local", [job], { DB: d1Failing({ everything: true }) }, { attempts: attempt });
      expect(dead.retryMessages).toHaveLength(1);
    }
    expect(["completed", "failed", "expired"]).not.toContain((await persisted(v.id)).row.status);

    // What each run does to this verification (other tests' verifications may be late too, so the
    // sweep's totals are not this one's): its jobs sent, none offered, its jobs refused, or failed.
    type Outcome = "redriven" | "waits" | "refused" | "failed";
    const steps: Array<[number, "kept" | "refusing", Outcome]> = [
      [STRAGGLER_GRACE_MS, "kept", "redriven"],
      [STRAGGLER_GRACE_MS + 60_000, "kept", "waits"],
      [STRAGGLER_GRACE_MS + REDRIVE_EVERY_MS, "refusing", "refused"],
      [STRAGGLER_GRACE_MS + 2 * REDRIVE_EVERY_MS, "kept", "redriven"],
      [FAIL_AFTER_MS, "kept", "failed"],
    ];
    const mine = (bodies: Body[]) => bodies.filter((b) => b.verification_id === v.id).map((b) => b.type).sort();
    for (const [age, lane, outcome] of steps) {
      const at = `at +${age / 60_000} min`;
      const kept = keptQueue();
      const refusing = refusingQueue();
      const swept = await sweepStragglers({ ...env, ...lanesOf(lane === "kept" ? kept.queue : refusing) }, db(), readyAt + age);
      const offered = mine(lane === "kept" ? kept.bodies : refusing.attempted);
      // Re-driven: the capture's analysis again and a settlement; otherwise nothing offered for it.
      expect(offered, at).toEqual(outcome === "redriven" || outcome === "refused" ? ["analyze_capture", "settle_verification"] : []);
      if (outcome === "refused") expect(swept.errors, at).toBeGreaterThanOrEqual(1);
      expect((await persisted(v.id)).row.status === "failed", at).toBe(outcome === "failed");
    }
    const p = await persisted(v.id);
    expect(p.row.status).toBe("failed");
    expect(p.row.failureReason).toMatch(/^analysis_failed: no verdict 13 minutes after the evidence was complete/);
    expect(FAIL_AFTER_MS).toBeLessThan(15 * 60_000 - 60_000);
    const [analysis] = await analysesOfIds([v.id]);
    expect(analysis).toMatchObject({ status: "failed", captureId: p.captures[0]!.id });
    expect(p.events.filter((e) => e.name === "verification.failed")).toHaveLength(1);
  });
});

describe("a webhook delivery whose queue message is gone", () => {
  it("the dead-letter consumer failing on a delivery, or its message lost: the sweep sends it again, or fails it past its schedule", async () => {
    const r = receiver();
    const v = await createVerification(t.key, { max_captures: 1 });
    const now = Date.now();
    const row = (over: Partial<typeof webhookDeliveries.$inferInsert>) => ({
      id: newId("webhookDelivery", now),
      eventId: newId("event", now),
      verificationId: v.id,
      tenantId: t.id,
      eventType: "verification.created",
      url: r.url,
      payload: JSON.stringify({ id: "evt", type: "verification.created", created_at: new Date(now).toISOString(), data: { object: v } }),
      status: "pending" as const,
      attempts: 3,
      createdAt: now - 5 * 3_600_000,
      updatedAt: now - 2 * 3_600_000,
      unguarded: true,
      ...over,
    });
    // Its retry was due two hours ago and no message came (the dead-letter consumer failed to mark it, or the message was lost).
    const lost = row({ nextAttemptAt: now - 2 * 3_600_000 });
    // Created, never enqueued (its event was dead-lettered).
    const neverSent = row({ id: newId("webhookDelivery", now), eventId: newId("event", now), attempts: 0, nextAttemptAt: null, createdAt: now - 2 * 3_600_000 });
    // Older than the whole retry schedule: the dead-letter queue would have had it.
    const exhausted = row({ id: newId("webhookDelivery", now), eventId: newId("event", now), attempts: 21, createdAt: now - 100 * 3_600_000, nextAttemptAt: now - 3 * 3_600_000 });
    // Due in an hour: not stuck.
    const waiting = row({ id: newId("webhookDelivery", now), eventId: newId("event", now), nextAttemptAt: now + 3_600_000 });
    await db().insert(webhookDeliveries).values([lost, neverSent, exhausted, waiting]);

    const swept = await sweepStuckDeliveries(env, db(), now);
    expect(swept.requeued).toBeGreaterThanOrEqual(2);
    expect(swept.failed).toBeGreaterThanOrEqual(1);
    const status = async (id: string) => (await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)))[0]!;
    await eventually(async () => (await status(lost.id)).status === "succeeded" && (await status(neverSent.id)).status === "succeeded", "both delivered");
    expect((await status(exhausted.id)).status).toBe("failed");
    expect((await status(waiting.id)).status).toBe("pending");
    // A second run finds nothing more to do for them: each was delivered once.
    await sweepStuckDeliveries(env, db(), now + 60_000);
    const hits = await received(r.id);
    expect(hits.filter((h) => h.answered === 204)).toHaveLength(2);
  });
});

describe("expiry under faults", () => {
  it("an unfinished verification expires by its alarm while the events queue refuses; the event follows on recovery", async () => {
    const r = receiver();
    const v = await createVerification(t.key, { max_captures: 2, expires_in_seconds: 1, webhook_url: r.url });
    await runInDurableObject(verificationObject(env, v.id), (instance: VerificationObject) => {
      instance.publisher = {
        async publish() {
          throw new Error("queue send refused (injected)");
        },
      };
    });
    // The alarm (armed at expires_at by the created event's consumer) expires it through the object.
    const p = await eventually(async () => {
      const s = await persisted(v.id);
      return s.row.status === "expired" ? s : null;
    }, "expired by the alarm");
    expect(p.events.find((e) => e.name === "verification.expired")!.dispatchedAt).toBeNull();
    await releaseEvents(v.id);
    await runDurableObjectAlarm(verificationObject(env, v.id));
    const hit = await eventually(async () => (await received(r.id)).find((h) => JSON.parse(h.body).type === "verification.expired"), "the expired webhook");
    expect(JSON.parse(hit.body).data.object.status).toBe("expired");
  });
});

describe("the webhook receiver down for 72 hours (time advanced, not waited)", () => {
  it("every event's webhook is delivered exactly once per id after recovery, each signature verifies", async () => {
    const r = receiver("fail=always");
    // The events go where the test says: created by the Worker with a kept events queue, the rest held by the object.
    const events = keptQueue();
    const created = await createInWorker({ ...env, EVENTS_QUEUE: events.queue as Queue<QueueMessage> }, db(), {
      tenantId: t.id,
      input: { max_captures: 1, webhook_url: r.url },
      localRequest: true,
    });
    if (created.kind !== "created") throw new Error("not created");
    const id = created.record.row.id;
    const held = await holdEvents(id);
    expect((await inlineCapture(id)).status).toBe(201);
    // The analysis runs for real; the deliveries' queue messages are kept for the simulated queue below.
    const messages = keptQueue();
    await deliver("vfy-events-local", [...events.bodies, ...held], { WEBHOOKS_QUEUE: messages.queue });
    expect((await pollVerification(t.key, id, hasVerdict)).status).toBe("completed");
    await eventually(async () => held.some((b) => (b.event as { name: string }).name === "verification.completed"), "the completed event");
    await deliver("vfy-events-local", held.filter((b) => (b.event as { name: string }).name === "verification.completed"), { WEBHOOKS_QUEUE: messages.queue });
    const deliveryIds = messages.bodies.map((b) => b.delivery_id as string);
    expect(deliveryIds).toHaveLength(3);

    // The simulated queue: each message comes back after the delay its attempt asked for, on the
    // production schedule with every jitter draw at its lowest (the shortest the retries can span),
    // all three on one clock; the receiver recovers once 72 hours have passed.
    const start = Date.now();
    const downUntil = start + 72 * 3600_000;
    const schedule = { baseSeconds: PRODUCTION_BASE_SECONDS, random: () => 0 };
    let due = deliveryIds.map((deliveryId) => ({ deliveryId, at: start, attempt: 1 }));
    let recovered = false;
    let clock = start;
    while (due.length > 0) {
      due.sort((x, y) => x.at - y.at);
      const next = due.shift()!;
      clock = next.at;
      if (!recovered && clock >= downUntil) {
        await recover(r.id);
        recovered = true;
      }
      const outcome = await attemptDelivery(env, db(), next.deliveryId, next.attempt, { now: () => clock, schedule });
      if (outcome.kind === "retry") {
        expect(next.attempt, "delivered before the queue gives up").toBeLessThanOrEqual(WEBHOOK_MAX_RETRIES);
        due = [...due, { deliveryId: next.deliveryId, at: clock + outcome.delaySeconds * 1000, attempt: next.attempt + 1 }];
      }
    }
    for (const deliveryId of deliveryIds) {
      // A duplicate of the message (at-least-once) after success sends nothing.
      expect(await attemptDelivery(env, db(), deliveryId, 1, { now: () => clock, schedule })).toEqual({ kind: "done" });
      const [row] = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId));
      expect(row!.status).toBe("succeeded");
      expect(row!.deliveredAt! - start).toBeGreaterThanOrEqual(72 * 3600_000);
      expect(row!.deliveredAt! - start).toBeLessThan(81 * 3600_000);
    }
    const hits = await received(r.id);
    const succeeded = hits.filter((h) => h.answered === 204);
    expect(succeeded.map((h) => JSON.parse(h.body).type).sort()).toEqual(["verification.capture.persisted", "verification.completed", "verification.created"]);
    expect(new Set(succeeded.map((h) => h.headers["webhook-id"])).size).toBe(3);
    // Every attempt of one delivery carries the same id and body; the failed ones came before recovery.
    for (const hit of succeeded) {
      const same = hits.filter((h) => h.headers["webhook-id"] === hit.headers["webhook-id"]);
      expect(same.length).toBeGreaterThan(10);
      expect(new Set(same.map((h) => h.body)).size).toBe(1);
    }
    const [tenant] = await db().select().from(tenants).where(eq(tenants.id, t.id));
    const verifier = new Webhook(tenant!.webhookSecret);
    for (const hit of succeeded) {
      // The signature is checked at the simulated time it was made (the library refuses stale timestamps).
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(Number(hit.headers["webhook-timestamp"]) * 1000);
      expect(verifier.verify(hit.body, hit.headers)).toMatchObject({ type: JSON.parse(hit.body).type });
      vi.useRealTimers();
    }
  }, 60_000);
});
