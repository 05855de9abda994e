import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { VerificationObject } from "../../src/durable-objects/verification-object";
import { verificationObject } from "../../src/durable-objects/verification-client";
import type { DomainEvent, QueueMessage } from "../../src/events/messages";
import { queuePublisher } from "../../src/events/publisher";
import { newId } from "../../src/lib/ids";
import { directJobs } from "../../src/queues/events.consumer";
import { createVerification, eventually, seedTenant, type TestTenant } from "../helpers/api";
import { inlineCapture } from "../helpers/capture";
import { persisted } from "../helpers/snapshot";
import { receiver } from "../helpers/webhooks";

/*
 * An event whose only work is an analysis job (a capture of a verification without a webhook) is not
 * sent to the events queue for its consumer to turn into the job: the verification's object sends
 * the job to the analysis queue itself. The outbox holds as before: published means sent, and an
 * event whose send failed is re-driven until it is.
 */

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant();
});

/** The real queue, recording what is sent through it; `refuse` makes its sends fail while it returns true. */
function recording(queue: Queue<QueueMessage>, sent: QueueMessage[], refuse: () => boolean = () => false): Queue<QueueMessage> {
  return {
    async send(body, options) {
      if (refuse()) throw new Error("queue unavailable (injected)");
      sent.push(body);
      return queue.send(body, options);
    },
    async sendBatch(messages, options) {
      if (refuse()) throw new Error("queue unavailable (injected)");
      sent.push(...[...messages].map((m) => m.body));
      return queue.sendBatch(messages, options);
    },
  } as Pick<Queue<QueueMessage>, "send" | "sendBatch"> as unknown as Queue<QueueMessage>;
}

/** The object publishes through recording queues from now on. */
function watchQueues(id: string, events: QueueMessage[], analysis: QueueMessage[], refuseAnalysis: () => boolean = () => false): Promise<void> {
  return runInDurableObject(verificationObject(env, id), (instance: VerificationObject) => {
    instance.publisher = queuePublisher(recording(env.EVENTS_QUEUE, events), recording(env.ANALYSIS_QUEUE, analysis, refuseAnalysis));
  });
}

async function armed(id: string) {
  await eventually(async () => (await persisted(id)).events[0]!.dispatchedAt !== null, "created event consumed");
}

describe("analysis jobs straight from the verification's object", () => {
  it("a capture without a webhook: its analyze_capture job goes to the analysis queue, nothing to the events queue; the event is marked as published", async () => {
    const v = await createVerification(t.key, { max_captures: 3 });
    await armed(v.id);
    const events: QueueMessage[] = [];
    const analysis: QueueMessage[] = [];
    await watchQueues(v.id, events, analysis);
    expect((await inlineCapture(v.id)).status).toBe(201);
    let p = await persisted(v.id);
    expect(events).toEqual([]);
    expect(analysis).toEqual([{ type: "analyze_capture", v: 1, verification_id: v.id, capture_id: p.captures[0]!.id }]);
    // Journaled as published; the next commit marks it dispatched.
    expect(await runInDurableObject(verificationObject(env, v.id), (_i: VerificationObject, state) => state.storage.kv.get("published"))).toEqual([p.events[1]!.id]);
    expect((await inlineCapture(v.id)).status).toBe(201);
    p = await persisted(v.id);
    expect(p.events.map((e) => [e.name, e.dispatchedAt !== null])).toEqual([
      ["verification.created", true],
      ["verification.capture.persisted", true],
      ["verification.capture.persisted", false],
    ]);
    expect(analysis.map((m) => (m as { capture_id?: string }).capture_id)).toEqual(p.captures.map((c) => c.id));
  });

  it("a capture with a webhook still goes to the events consumer, with the hint; the consumer sends its job", async () => {
    const v = await createVerification(t.key, { max_captures: 2, webhook_url: receiver().url });
    await armed(v.id);
    const events: QueueMessage[] = [];
    const analysis: QueueMessage[] = [];
    await watchQueues(v.id, events, analysis);
    expect((await inlineCapture(v.id)).status).toBe(201);
    expect(events).toEqual([expect.objectContaining({ type: "domain_event", webhook: true, event: expect.objectContaining({ name: "verification.capture.persisted" }) })]);
    expect(analysis).toEqual([]);
  });

  it("the analysis queue refuses: the event stays unsent and the alarm re-drives it until the job is sent (nothing lost)", async () => {
    const v = await createVerification(t.key, { max_captures: 2 });
    await armed(v.id);
    const events: QueueMessage[] = [];
    const analysis: QueueMessage[] = [];
    let refuse = true;
    await watchQueues(v.id, events, analysis, () => refuse);
    expect((await inlineCapture(v.id)).status).toBe(201);
    let p = await persisted(v.id);
    const event = p.events.find((e) => e.name === "verification.capture.persisted")!;
    expect(event.dispatchedAt).toBeNull();
    expect(analysis).toEqual([]);
    const stub = verificationObject(env, v.id);
    expect(await runInDurableObject(stub, (_i: VerificationObject, state) => state.storage.get<number>("redrive_at"))).toBeGreaterThan(0);

    refuse = false;
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    p = await persisted(v.id);
    expect(p.events.every((e) => e.dispatchedAt !== null)).toBe(true);
    expect(analysis).toEqual([{ type: "analyze_capture", v: 1, verification_id: v.id, capture_id: p.captures[0]!.id }]);
    expect(events).toEqual([]);
  });
});

describe("which events skip the events consumer (directJobs)", () => {
  const event = (name: string, payload: Record<string, unknown> | null = null): DomainEvent => ({
    id: newId("event", Date.now()),
    name,
    verification_id: "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z",
    tenant_id: "ten_x",
    occurred_at: Date.now(),
    payload,
  });

  it("only events whose every subscriber is an analysis job, or idle by the hints", () => {
    const persistedEvent = event("verification.capture.persisted", { capture_id: "cap_1" });
    const job = { type: "analyze_capture", v: 1, verification_id: persistedEvent.verification_id, capture_id: "cap_1" };
    expect(directJobs(persistedEvent, { webhook: false })).toEqual([job]);
    // A webhook to deliver, or no hint to know: the consumer runs.
    expect(directJobs(persistedEvent, { webhook: true })).toBeNull();
    expect(directJobs(persistedEvent, {})).toBeNull();
    expect(directJobs(event("verification.ready"), { webhook: true })).toEqual([{ type: "settle_verification", v: 1, verification_id: persistedEvent.verification_id }]);
    // Arming the object, an email, the trial verdict: work in the API Worker.
    expect(directJobs(event("verification.created"), { webhook: false })).toBeNull();
    expect(directJobs(event("verification.completed"), { webhook: false })).toBeNull();
    expect(directJobs(event("verification.expired"), { webhook: false })).toBeNull();
    // Nothing subscribes: nothing to send.
    expect(directJobs(event("verification.answer.recorded"), {})).toEqual([]);
  });
});
