import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createDb } from "../../src/db/client";
import { captures, events, verifications } from "../../src/db/schema";
import { eventRow, loadRecord, newVerificationRow, type EventRow, type VerificationRow } from "../../src/db/verifications";
import { commitBatch } from "../../src/durable-objects/verification/commit";
import type { EvidencePurger, ObjectContext } from "../../src/durable-objects/verification/context";
import type { RedactionSteps } from "../../src/durable-objects/verification/redaction";
import type { EventHints, EventPublisher } from "../../src/events/publisher";
import { errorResult } from "../../src/lib/errors";
import { newId } from "../../src/lib/ids";
import { CONTRACT_DEFAULTS, normalizeConfig } from "../../src/model/verification/config";
import { toState } from "../../src/model/verification/record";

/*
 * The verification object's modules (src/durable-objects/verification/) driven alone: a real
 * DurableObjectState (its storage and sync KV) of an object no request addresses, the real local D1
 * and R2, and recording fakes for the seams the object's tests replace (publisher, purger, clock).
 */

/** Runs `fn` inside a Durable Object of its own (a fresh id: its storage holds only what the test writes). */
export function inFreshObject<T>(fn: (state: DurableObjectState) => Promise<T>): Promise<T> {
  const stub = env.VERIFICATIONS.get(env.VERIFICATIONS.newUniqueId());
  return runInDurableObject(stub, (_instance, state) => fn(state));
}

/** The events queue as the outbox sees it: records what went out, or fails while `failing` (a queue outage). */
export class RecordingPublisher implements EventPublisher {
  /** Ids of every event published, in order (a second publish of one shows twice). */
  readonly sent: string[] = [];
  readonly hints: (EventHints | undefined)[] = [];
  failing = false;

  async publish(rows: EventRow[], hints?: EventHints): Promise<void> {
    if (this.failing) throw new Error("queue unavailable (test)");
    this.sent.push(...rows.map((r) => r.id));
    this.hints.push(hints);
  }
}

/** The evidence bucket's purge as redaction and the sweep call it: records the verifications, or fails while `failing`. */
export class RecordingPurger implements EvidencePurger {
  readonly purged: string[] = [];
  failing = false;

  async purge(verificationId: string): Promise<void> {
    if (this.failing) throw new Error("bucket unavailable (test)");
    this.purged.push(verificationId);
  }
}

/**
 * A module's ObjectContext over `storage`, with the seams it calls out through. The clock starts a
 * day ahead of the wall clock so that an alarm a module arms never fires during the test (the
 * object's own alarm handler would consume it).
 */
export function moduleContext(storage: DurableObjectStorage) {
  const clock = { now: Date.now() + 24 * 60 * 60 * 1000 };
  const publisher = new RecordingPublisher();
  const purger = new RecordingPurger();
  const cx: ObjectContext = { storage, env, db: () => createDb(env.DB), now: () => clock.now, publisher: () => publisher, purger: () => purger };
  return { cx, clock, publisher, purger };
}

/** An open verification's row written directly to D1 (as the Worker's create does), with personal data in its config. */
export async function seedVerification(tenantId: string, now: number, overrides: Partial<VerificationRow> = {}): Promise<VerificationRow> {
  const id = newId("verification", now);
  const config = normalizeConfig(
    { max_captures: 3, metadata: { claim: "CLM-42" }, notify_email: "holder@example.com", webhook_url: "https://hooks.example.com/v" },
    CONTRACT_DEFAULTS,
  );
  const row = { ...newVerificationRow({ id, tenantId, config, sealEnabled: false, createdAt: now, expiresAt: now + 60 * 60 * 1000 }), ...overrides };
  await createDb(env.DB).insert(verifications).values(row);
  return row;
}

/** Outbox rows a commit wrote for `row` (undispatched), in id order. */
export async function seedEvents(row: Pick<VerificationRow, "id" | "tenantId">, names: string[], now: number): Promise<EventRow[]> {
  const rows = names.map((name) => eventRow(row.id, row.tenantId, { name }, now));
  for (const r of rows) await createDb(env.DB).insert(events).values(r);
  return rows;
}

/** A capture of `row` that took the bytes at `imageKey` (seq 1), as the capture's commit writes it. */
export async function seedCapture(row: Pick<VerificationRow, "id" | "tenantId">, capture: { id: string; imageKey: string; location?: unknown; captureIntegrity?: unknown }, now: number): Promise<void> {
  await createDb(env.DB)
    .insert(captures)
    .values({
      id: capture.id,
      verificationId: row.id,
      tenantId: row.tenantId,
      stepKey: "photo",
      stepType: "image",
      seq: 1,
      imageKey: capture.imageKey,
      contentType: "image/jpeg",
      sizeBytes: 1,
      sha256: "0".repeat(64),
      location: capture.location ?? null,
      captureIntegrity: capture.captureIntegrity ?? null,
      createdAt: now,
    });
}

/**
 * Redaction's steps without the object: `apply` is the object's commit reduced to its D1 part (load,
 * decide, one batch built by commit.ts; the events stay in the outbox, unpublished); the re-drive and
 * the alarm's scheduling only count their calls.
 */
export function commitSteps(cx: ObjectContext, id: string) {
  const calls = { apply: 0, redrive: 0, schedule: 0 };
  const steps: RedactionSteps = {
    async apply(decide) {
      calls.apply += 1;
      const db = cx.db();
      const record = await loadRecord(db, id);
      if (!record) return errorResult("not_found", "No such verification.");
      const now = cx.now();
      const state = toState(record);
      const plan = await decide(state, record, now);
      if ("ok" in plan) return plan;
      if (plan.noop) return { ok: true, record, ...(plan.replayed ? { replayed: true } : {}) };
      const eventRows = plan.transition.events.map((e) => eventRow(id, state.tenantId, e, now));
      const commit = commitBatch({ db, d1: cx.env.DB, state, plan, eventRows, marks: [], now });
      const after = commit.after(record, await cx.env.DB.batch(commit.statements));
      if (!after) throw new Error("verification vanished after commit");
      return { ok: true, record: after };
    },
    async redrive() {
      calls.redrive += 1;
    },
    async schedule() {
      calls.schedule += 1;
    },
  };
  return { steps, calls };
}
