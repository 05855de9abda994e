import { createExecutionContext, createMessageBatch, getQueueResult, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { deliveryByEvent } from "../../src/db/webhooks";
import type { VerificationObject } from "../../src/durable-objects/verification-object";
import { verificationObject } from "../../src/durable-objects/verification-client";
import type { EventHints } from "../../src/events/publisher";
import { newId } from "../../src/lib/ids";
import { handleQueue } from "../../src/queues";
import { call, callJson, createVerification, db, seedTenant, type TestTenant } from "../helpers/api";
import { inlineCapture } from "../helpers/capture";
import { dashboard, signIn } from "../helpers/session";
import { waitFor } from "../helpers/wait";
import { received, receiver } from "../helpers/webhooks";

/*
 * The publisher of a domain event says whether the verification has a webhook (`webhook` on the
 * queue message), so the events consumer decides without reading the verification; a message
 * without it (a re-drive) is decided from D1, as before.
 */

/** One domain-event message straight into the API Worker's events consumer. */
async function consume(body: Record<string, unknown>) {
  const batch = createMessageBatch("vfy-events-local", [{ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body }]);
  const ctx = createExecutionContext();
  await handleQueue(batch, env, ctx);
  return getQueueResult(batch, ctx);
}

/** A `verification.capture.persisted` event of `v` that no publisher sent (nothing else handles it). */
function persistedEvent(v: { id: string }, t: TestTenant) {
  const now = Date.now();
  return { id: newId("event", now), name: "verification.capture.persisted", verification_id: v.id, tenant_id: t.id, occurred_at: now, payload: { capture_id: "cap_none" } };
}

/** Records the hints of everything the verification's object publishes from now on (and still publishes it). */
function recordHints(id: string, seen: EventHints[]): Promise<void> {
  return runInDurableObject(verificationObject(env, id), (instance: VerificationObject) => {
    const real = instance.publisher;
    instance.publisher = {
      async publish(events, hints) {
        seen.push(...events.map(() => hints ?? {}));
        await real.publish(events, hints);
      },
    };
  });
}

describe("event hints: whether a webhook is configured travels with the event", () => {
  it("the verification's object tells, on every event it publishes, whether the verification has a webhook and when it expires", async () => {
    const t = await seedTenant();
    const r = receiver();
    const withHook = await createVerification(t.key, { max_captures: 2, webhook_url: r.url });
    const without = await createVerification(t.key, { max_captures: 2 });
    const seenWith: EventHints[] = [];
    const seenWithout: EventHints[] = [];
    await recordHints(withHook.id, seenWith);
    await recordHints(without.id, seenWithout);
    expect((await inlineCapture(withHook.id)).status).toBe(201);
    expect((await inlineCapture(without.id)).status).toBe(201);
    expect(seenWith).toEqual([{ webhook: true, expiresAt: Date.parse(withHook.expires_at) }]);
    expect(seenWithout).toEqual([{ webhook: false, expiresAt: Date.parse(without.expires_at) }]);
    // And the capture's webhook is delivered where one is configured.
    await waitFor(async () => ((await received(r.id)).some((h) => JSON.parse(h.body).type === "verification.capture.persisted") ? true : undefined), { what: "the capture's webhook" });
  });

  it("the consumer follows the hint without reading the verification; without a hint it reads the config", async () => {
    const t = await seedTenant();
    const r = receiver();
    const withHook = await createVerification(t.key, { max_captures: 1, webhook_url: r.url });
    const without = await createVerification(t.key, { max_captures: 1 });

    const hinted = persistedEvent(withHook, t);
    expect((await consume({ type: "domain_event", v: 1, event: hinted, webhook: true })).explicitAcks).toHaveLength(1);
    expect(await deliveryByEvent(db(), hinted.id)).toMatchObject({ url: r.url, eventType: "verification.capture.persisted" });

    // Re-drives carry no hint: the config decides, both ways.
    const unhinted = persistedEvent(withHook, t);
    expect((await consume({ type: "domain_event", v: 1, event: unhinted })).explicitAcks).toHaveLength(1);
    expect(await deliveryByEvent(db(), unhinted.id)).toMatchObject({ url: r.url });
    const unhintedWithout = persistedEvent(without, t);
    expect((await consume({ type: "domain_event", v: 1, event: unhintedWithout })).explicitAcks).toHaveLength(1);
    expect(await deliveryByEvent(db(), unhintedWithout.id)).toBeUndefined();

    const hintedWithout = persistedEvent(without, t);
    expect((await consume({ type: "domain_event", v: 1, event: hintedWithout, webhook: false })).explicitAcks).toHaveLength(1);
    expect(await deliveryByEvent(db(), hintedWithout.id)).toBeUndefined();
    // The hint alone decides (no read): publishers derive it from the verification's fixed config.
    const trusted = persistedEvent(withHook, t);
    expect((await consume({ type: "domain_event", v: 1, event: trusted, webhook: false })).explicitAcks).toHaveLength(1);
    expect(await deliveryByEvent(db(), trusted.id)).toBeUndefined();
  });

  it("a template's webhook_url changed while a verification started from it is in flight: its events still go to the URL it was created with", async () => {
    const t = await seedTenant();
    const before = receiver();
    const after = receiver();
    const { cookie } = await signIn(t.id);
    const slug = `hooks-${Date.now().toString(36)}`;
    const steps = [{ key: "roof", type: "image", description: "The roof", min: 1, max: 2 }];
    const published = await callJson("/v1/link-templates", { body: { slug, name: "Claim", steps, webhook_url: before.url }, headers: dashboard(cookie) });
    expect(published.status).toBe(201);
    const opened = await call(`/l/${t.slug}/${slug}`, { redirect: "manual" });
    await opened.text();
    const id = /\/c\/(vfy_[0-9A-Z]{26})$/.exec(opened.headers.get("Location") ?? "")![1]!;

    const changed = await callJson(`/v1/link-templates/${slug}`, { method: "PATCH", body: { webhook_url: after.url }, headers: dashboard(cookie) });
    expect(changed.status).toBe(200);
    expect((await inlineCapture(id)).status).toBe(201);

    const hits = await waitFor(async () => {
      const got = await received(before.id);
      return got.some((h) => JSON.parse(h.body).type === "verification.capture.persisted") ? got : undefined;
    }, { what: "the capture's webhook at the original URL" });
    expect(hits.map((h) => JSON.parse(h.body).data.object.id)).toContain(id);
    expect(await received(after.id)).toEqual([]);
  });
});

describe("events consumer: a batch's analysis jobs go out in one send, before the events are acked", () => {
  async function consumeAll(bodies: Record<string, unknown>[], queue: object) {
    const batch = createMessageBatch("vfy-events-local", bodies.map((body) => ({ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body })));
    const ctx = createExecutionContext();
    await handleQueue(batch, { ...env, ANALYSIS_QUEUE: queue as unknown as Queue }, ctx);
    return getQueueResult(batch, ctx);
  }

  function persisted(v: { id: string }, t: TestTenant, captureId: string) {
    return { type: "domain_event", v: 1, event: { ...persistedEvent(v, t), payload: { capture_id: captureId } }, webhook: false };
  }

  it("one sendBatch for the batch's jobs, in each verification's order; then every message is acked", async () => {
    const t = await seedTenant();
    const a = await createVerification(t.key, { max_captures: 2 });
    const b = await createVerification(t.key, { max_captures: 2 });
    const sent: unknown[][] = [];
    const queue = {
      async send() {
        throw new Error("one send per job: not expected");
      },
      async sendBatch(messages: Iterable<MessageSendRequest>) {
        sent.push([...messages].map((m) => m.body));
      },
    };
    const ready = { type: "domain_event", v: 1, event: { ...persistedEvent(a, t), name: "verification.ready", payload: null }, webhook: false };
    const result = await consumeAll([persisted(a, t, "cap_A1"), persisted(b, t, "cap_B1"), persisted(a, t, "cap_A2"), ready], queue);
    expect(result.explicitAcks).toHaveLength(4);
    expect(result.retryMessages).toEqual([]);
    expect(sent).toHaveLength(1);
    const jobs = sent[0] as Array<{ type: string; verification_id: string; capture_id?: string }>;
    expect(jobs).toHaveLength(4);
    expect(jobs.filter((j) => j.verification_id === a.id).map((j) => j.capture_id ?? j.type)).toEqual(["cap_A1", "cap_A2", "settle_verification"]);
    expect(jobs.filter((j) => j.verification_id === b.id).map((j) => j.capture_id)).toEqual(["cap_B1"]);
  });

  it("when the analysis queue refuses the send, no event of the batch that had a job is acked: they come again", async () => {
    const t = await seedTenant();
    const a = await createVerification(t.key, { max_captures: 2 });
    const queue = {
      async send() {
        throw new Error("queue unavailable (injected)");
      },
      async sendBatch() {
        throw new Error("queue unavailable (injected)");
      },
    };
    // An event without an analysis job (an internal one, no subscriber) is acked as before.
    const other = { type: "domain_event", v: 1, event: { ...persistedEvent(a, t), name: "verification.abandoned", payload: null }, webhook: false };
    const result = await consumeAll([persisted(a, t, "cap_X1"), persisted(a, t, "cap_X2"), other], queue);
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toHaveLength(2);
  });
});
