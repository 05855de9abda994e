import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { VerificationObject } from "../../src/durable-objects/verification-object";
import { verificationObject } from "../../src/durable-objects/verification-client";
import { callJson, createVerification, eventually, seedTenant, type TestTenant } from "../helpers/api";
import { inlineCapture, upload } from "../helpers/capture";
import { persisted } from "../helpers/snapshot";
import { thumbnailKeyFor } from "../../src/storage/evidence";
import { encodeJpeg, naturalScene } from "../helpers/synth";

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant();
});

type Stub = ReturnType<typeof verificationObject>;

/** Makes the object's queue sends fail; its real publisher is kept for `recordPublishes`. */
function failPublishes(stub: Stub): Promise<void> {
  return runInDurableObject(stub, (instance: VerificationObject) => {
    (instance as any).realPublisher ??= instance.publisher;
    instance.publisher = {
      async publish() {
        throw new Error("queue unavailable (injected)");
      },
    };
  });
}

/** Sends through the real publisher (again), recording each event id sent in `sent`. */
function recordPublishes(stub: Stub, sent: string[]): Promise<void> {
  return runInDurableObject(stub, (instance: VerificationObject) => {
    const real = (instance as any).realPublisher ?? instance.publisher;
    instance.publisher = {
      async publish(events) {
        sent.push(...events.map((e) => e.id));
        await real.publish(events);
      },
    };
  });
}

describe("outbox", () => {
  it("every committed event is published once; the next commit marks it dispatched, the alarm the last ones", async () => {
    const v = await createVerification(t.key, { max_captures: 3 });
    // The events consumer marks `verification.created` when it receives it (after the response).
    await eventually(async () => (await persisted(v.id)).events[0]!.dispatchedAt !== null, "created event consumed");
    const stub = verificationObject(env, v.id);
    const sent: string[] = [];
    await recordPublishes(stub, sent);
    expect((await inlineCapture(v.id)).status).toBe(201);
    let p = await persisted(v.id);
    expect(p.events.map((e) => e.name)).toEqual(["verification.created", "verification.capture.persisted"]);
    const [created, first] = p.events;
    // Published at once; marked in D1 by the next commit (the creation's event by the consumer).
    expect(sent).toEqual([first!.id]);
    expect(created!.dispatchedAt).not.toBeNull();
    expect(first!.dispatchedAt).toBeNull();

    expect((await inlineCapture(v.id)).status).toBe(201);
    p = await persisted(v.id);
    const second = p.events[2]!;
    expect(sent).toEqual([first!.id, second.id]);
    expect(p.events[1]!.dispatchedAt).not.toBeNull();
    expect(second.dispatchedAt).toBeNull();
    // The journal names only what is published and not yet marked: the first was replaced, not kept.
    expect(await runInDurableObject(stub, (_i: VerificationObject, state) => state.storage.kv.get("published"))).toEqual([second.id]);

    // No further commit: the alarm marks the last within a minute, and sends nothing again.
    const alarmAt = await runInDurableObject(stub, (_i: VerificationObject, state) => state.storage.getAlarm());
    expect(alarmAt!).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    p = await persisted(v.id);
    expect(p.events.every((e) => e.dispatchedAt !== null)).toBe(true);
    expect(sent).toEqual([first!.id, second.id]);
    const next = await runInDurableObject(stub, (_i: VerificationObject, state) => state.storage.getAlarm());
    expect(next).toBe(Date.parse(v.expires_at));
  });

  it("a failed queue send keeps the event in the outbox and the alarm re-drives it", async () => {
    const v = await createVerification(t.key, { max_captures: 2 });
    // The events consumer marks `verification.created` when it receives it (after the response).
    await eventually(async () => (await persisted(v.id)).events[0]!.dispatchedAt !== null, "created event consumed");
    const stub = verificationObject(env, v.id);
    const sent: string[] = [];
    await failPublishes(stub);
    const res = await inlineCapture(v.id);
    expect(res.status).toBe(201);
    let p = await persisted(v.id);
    const pending = p.events.filter((e) => e.dispatchedAt === null);
    expect(pending.map((e) => e.name)).toEqual(["verification.capture.persisted"]);
    const alarmAt = await runInDurableObject(stub, (_i: VerificationObject, state) => state.storage.getAlarm());
    expect(alarmAt).not.toBeNull();
    expect(alarmAt!).toBeLessThan(Date.now() + 60_000);

    await recordPublishes(stub, sent);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    p = await persisted(v.id);
    expect(p.events.every((e) => e.dispatchedAt !== null)).toBe(true);
    expect(sent).toEqual(pending.map((e) => e.id));
    // The next alarm is the expiry again, a week out.
    const next = await runInDurableObject(stub, (_i: VerificationObject, state) => state.storage.getAlarm());
    expect(next).toBe(Date.parse(v.expires_at));
  });

  it("a failed send after a commit that marked the journal leaves the journal empty; the re-drive sends only the unsent event", async () => {
    const v = await createVerification(t.key, { max_captures: 3 });
    await eventually(async () => (await persisted(v.id)).events[0]!.dispatchedAt !== null, "created event consumed");
    const stub = verificationObject(env, v.id);
    expect((await inlineCapture(v.id)).status).toBe(201);
    const first = (await persisted(v.id)).events[1]!;
    const journal = () => runInDurableObject(stub, (_i: VerificationObject, state) => state.storage.kv.get("published"));
    expect(await journal()).toEqual([first.id]);
    const sent: string[] = [];
    await failPublishes(stub);
    expect((await inlineCapture(v.id)).status).toBe(201);
    let p = await persisted(v.id);
    expect(p.events[1]!.dispatchedAt).not.toBeNull();
    expect(p.events.filter((e) => e.dispatchedAt === null).map((e) => e.name)).toEqual(["verification.capture.persisted"]);
    expect(await journal()).toBeUndefined();

    await recordPublishes(stub, sent);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    p = await persisted(v.id);
    expect(p.events.every((e) => e.dispatchedAt !== null)).toBe(true);
    expect(sent).toEqual([p.events[2]!.id]);
  });
});

describe("expiry alarm", () => {
  it("moves an unfinished verification to expired, records the event, and refuses later captures with 410", async () => {
    const v = await createVerification(t.key, { max_captures: 2, expires_in_seconds: 1 });
    await inlineCapture(v.id);
    const stub = verificationObject(env, v.id);
    await new Promise((r) => setTimeout(r, 1050));
    await runDurableObjectAlarm(stub);
    const p = await eventually(async () => {
      const s = await persisted(v.id);
      return s.row.status === "expired" ? s : null;
    }, "expired status");
    expect(p.events.map((e) => e.name)).toContain("verification.expired");
    const late = await inlineCapture(v.id);
    expect(late.status).toBe(410);
    expect(late.body.error.code).toBe("expired");
    const events = await callJson(`/v1/verifications/${v.id}/events`, { key: t.key });
    expect(events.body.events.at(-1).event_name).toBe("verification.expired");
  });

  it("sweeps uploads that no capture references once the verification is over", async () => {
    const v = await createVerification(t.key, { max_captures: 2, expires_in_seconds: 1 });
    const used = await inlineCapture(v.id);
    expect(used.status).toBe(201);
    const orphan = await upload(v.id);
    const stub = verificationObject(env, v.id);
    await eventually(async () => (await persisted(v.id)).row.status === "expired", "expired status");
    const sweepAt = await runInDurableObject(stub, (_i: VerificationObject, state) => state.storage.get<number>("sweep_at"));
    expect(sweepAt).toBeGreaterThan(Date.now());
    // Pretend the grace period passed: run the sweep as the alarm would, with a clock past it.
    await runInDurableObject(stub, async (instance: VerificationObject, state) => {
      instance.clock = () => sweepAt! + 6 * 60 * 1000 + 1;
      await state.storage.put("sweep_at", Date.now());
    });
    await runDurableObjectAlarm(stub);
    const p = await persisted(v.id);
    expect(p.objectKeys).toEqual([p.captures[0]!.imageKey]);
    expect(p.objectKeys).not.toContain(orphan.image_key);
    await runInDurableObject(stub, (instance: VerificationObject) => {
      instance.clock = () => Date.now();
    });
  });

  it("keeps the evidence thumbnails of a completed verification when it sweeps", async () => {
    const v = await createVerification(t.key, { max_captures: 2 });
    const first = await inlineCapture(v.id, {}, encodeJpeg(naturalScene(320, 240, 31), 85));
    const orphan = await upload(v.id);
    await inlineCapture(v.id, {}, encodeJpeg(naturalScene(320, 240, 32), 85));
    const thumbnails = first.body.captures.map((c: { id: string }) => thumbnailKeyFor(v.id, c.id));
    await eventually(async () => (await persisted(v.id)).row.status === "completed", "completed status");
    const p0 = await eventually(async () => {
      const p = await persisted(v.id);
      return p.captures.every((c) => p.objectKeys.includes(thumbnailKeyFor(v.id, c.id))) ? p : null;
    }, "thumbnails written");
    expect(thumbnails.every((k: string) => p0.objectKeys.includes(k))).toBe(true);
    const stub = verificationObject(env, v.id);
    const sweepAt = await runInDurableObject(stub, (_i: VerificationObject, state) => state.storage.get<number>("sweep_at"));
    await runInDurableObject(stub, async (instance: VerificationObject, state) => {
      instance.clock = () => sweepAt! + 60 * 60 * 1000 + 1;
      await state.storage.put("sweep_at", Date.now());
    });
    await runDurableObjectAlarm(stub);
    const p = await persisted(v.id);
    const kept = p.captures.flatMap((c) => [c.imageKey, thumbnailKeyFor(v.id, c.id)]);
    expect([...p.objectKeys].sort()).toEqual(kept.sort());
    expect(p.objectKeys).not.toContain(orphan.image_key);
    await runInDurableObject(stub, (instance: VerificationObject) => {
      instance.clock = () => Date.now();
    });
  });
});

describe("abandonment", () => {
  it("progress abandoned parks the verification; a later capture brings it back to partially_captured", async () => {
    const v = await createVerification(t.key, { max_captures: 3 });
    await inlineCapture(v.id);
    const abandon = await callJson(`/v1/verifications/${v.id}/progress`, {
      body: { schema_version: 1, kind: "abandoned", step: "capturing", elapsed_ms: 5000, step_index: 1, camera_permission: "granted" },
    });
    expect(abandon.status).toBe(204);
    expect((await callJson(`/v1/verifications/${v.id}`, { key: t.key })).body.status).toBe("abandoned");
    const back = await inlineCapture(v.id);
    expect(back.body.status).toBe("partially_captured");
    const names = (await persisted(v.id)).events.map((e) => e.name);
    expect(names).toEqual(["verification.created", "verification.capture.persisted", "verification.abandoned", "verification.capture.persisted"]);
  });

  // Probe of 2026-12-06: alternating `abandoned` and `step_reached` added an event each cycle, about
  // 72 000 a day under the write limit.
  it("leaving and coming back again and again parks it each time but puts only the first 10 on the timeline", async () => {
    const v = await createVerification(t.key, { max_captures: 3 });
    const report = (kind: string) =>
      callJson(`/v1/verifications/${v.id}/progress`, { body: { schema_version: 1, kind, step: "landing", elapsed_ms: 100, step_index: 0 } });
    for (let i = 0; i < 13; i += 1) {
      expect((await report("abandoned")).status).toBe(204);
      expect((await callJson(`/v1/verifications/${v.id}`, { key: t.key })).body.status).toBe("abandoned");
      expect((await report("step_reached")).status).toBe(204);
    }
    const events = await callJson(`/v1/verifications/${v.id}/events?limit=100`, { key: t.key });
    const abandoned = events.body.events.filter((e: { event_name: string }) => e.event_name === "verification.abandoned");
    expect(abandoned.map((e: { payload: { abandonment: number } }) => e.payload.abandonment)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect((await persisted(v.id)).row.abandonments).toBe(13);
  });
});

describe("terminal states refuse further changes", () => {
  it("after the verdict is written: a capture or upload URL is step_full (the quota is used), answers and submit 409 invalid_state, progress accepted", async () => {
    const v = await createVerification(t.key, {
      steps: [
        { key: "photo", type: "image", description: "", min: 1, max: 1 },
        { key: "note", type: "text", required: false, validation: { max_length: 10, format: "free_text" } },
      ],
    });
    await inlineCapture(v.id);
    const done = await verificationObject(env, v.id).complete(v.id, { verdict: { label: "verified", score: 0.9, signals: {} } });
    expect(done.ok).toBe(true);
    for (const res of [await inlineCapture(v.id), await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/jpeg" } })]) {
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe("step_full");
    }
    for (const res of [
      await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "note", value: "late" } }),
      await callJson(`/v1/verifications/${v.id}/submit`, { method: "POST" }),
    ]) {
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe("invalid_state");
    }
    const progress = await callJson(`/v1/verifications/${v.id}/progress`, { body: { schema_version: 1, kind: "abandoned", step: "landing", elapsed_ms: 1 } });
    expect(progress.status).toBe(204);
    const fetched = await callJson(`/v1/verifications/${v.id}`, { key: t.key });
    expect(fetched.body.status).toBe("completed");
    expect(fetched.body.verdict.label).toBe("verified");
  });
});
