import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { attemptsOf, insertDeliveryOnce, loadDelivery, type DeliveryRow } from "../../src/db/webhooks";
import { attemptDelivery } from "../../src/domain/webhooks/deliveries";
import { newId } from "../../src/lib/ids";
import { handleQueue } from "../../src/queues";
import { callJson, createVerification, db, seedTenant } from "../helpers/api";
import { received, receiver, sessionHeaders } from "../helpers/webhooks";

/*
 * One attempt at a time, driving the consumer function directly on deliveries written straight to
 * D1 (no queue message exists for them, so nothing runs in the background).
 */

async function pendingDelivery(url: string): Promise<DeliveryRow> {
  const t = await seedTenant();
  const v = await createVerification(t.key, { max_captures: 1 });
  const now = Date.now();
  const eventId = newId("event", now);
  return insertDeliveryOnce(db(), {
    id: newId("webhookDelivery", now),
    eventId,
    verificationId: v.id,
    tenantId: t.id,
    eventType: "verification.created",
    url,
    payload: JSON.stringify({ id: eventId, type: "verification.created", created_at: new Date(now).toISOString(), data: { object: v } }),
    status: "pending",
    attempts: 0,
    lastStatusCode: null,
    lastError: null,
    nextAttemptAt: now,
    deliveredAt: null,
    createdAt: now,
    updatedAt: now,
    // As a verification created over loopback in local development has it (the receivers are loopback).
    unguarded: true,
  });
}

const production = () => ({ ...env, ENVIRONMENT: "production" });

describe("a single delivery attempt", () => {
  it("does not follow redirects: a 3xx is a failed attempt, retried later", async () => {
    const r = receiver("redirect=1");
    const d = await pendingDelivery(r.url);
    const outcome = await attemptDelivery(env, db(), d.id, 1, { schedule: { baseSeconds: 8, random: () => 0.5 } });
    expect(outcome).toEqual({ kind: "retry", delaySeconds: 8 });
    const [attempt] = await attemptsOf(db(), d.id);
    expect(attempt).toMatchObject({ attempt: 1, statusCode: 302, error: "redirect (HTTP 302) not followed" });
    expect(attempt!.nextAttemptAt! - attempt!.attemptedAt).toBeGreaterThanOrEqual(8_000);
    expect(await received(r.id)).toHaveLength(1);
    expect(await received(`${r.id}-redirected`)).toHaveLength(0);
    expect(await loadDelivery(db(), d.id)).toMatchObject({ status: "pending", attempts: 1, lastStatusCode: 302 });
  });

  it("a receiver slower than the timeout is a failed attempt without a status code", async () => {
    const r = receiver("delay=1500");
    const d = await pendingDelivery(r.url);
    const outcome = await attemptDelivery(env, db(), d.id, 1, { timeoutMs: 200 });
    expect(outcome.kind).toBe("retry");
    const [attempt] = await attemptsOf(db(), d.id);
    expect(attempt).toMatchObject({ statusCode: null, error: "timeout: no response within 0.2 s" });
    expect(attempt!.latencyMs).toBeGreaterThanOrEqual(150);
  });

  it("outside local development the URL guard runs again before sending: refused for good, nothing sent", async () => {
    const r = receiver();
    const loopback = await pendingDelivery(r.url);
    expect(await attemptDelivery(production(), db(), loopback.id, 1)).toEqual({ kind: "done" });
    expect(await loadDelivery(db(), loopback.id)).toMatchObject({ status: "failed", attempts: 1, nextAttemptAt: null });
    const [attempt] = await attemptsOf(db(), loopback.id);
    expect(attempt!.error).toBe("refused by the URL guard: Must use https.");
    expect(await received(r.id)).toHaveLength(0);

    // A name that resolves (DoH fake) to a private address, e.g. after a DNS change since creation.
    const rebound = await pendingDelivery("https://hooks.private.test/in");
    expect(await attemptDelivery(production(), db(), rebound.id, 1)).toEqual({ kind: "done" });
    const [refused] = await attemptsOf(db(), rebound.id);
    expect(refused!.error).toMatch(/resolve to a private network address/);
  });

  it("a DNS resolver failure at delivery fails closed and is retried later, not failed for good", async () => {
    const r = receiver();
    const d = await pendingDelivery("https://hooks.broken.test/in"); // the DoH fake answers 500 for *.broken.test
    const outcome = await attemptDelivery(production(), db(), d.id, 1, { schedule: { baseSeconds: 8, random: () => 0.5 } });
    expect(outcome).toEqual({ kind: "retry", delaySeconds: 8 });
    const row = await loadDelivery(db(), d.id);
    expect(row).toMatchObject({ status: "pending", attempts: 1 });
    expect(row!.nextAttemptAt).toBeGreaterThan(Date.now());
    const [attempt] = await attemptsOf(db(), d.id);
    expect(attempt).toMatchObject({ statusCode: null, error: expect.stringMatching(/^not sent: Could not resolve hooks\.broken\.test/) });
    expect(await received(r.id)).toHaveLength(0);
  });

  it("two copies of the same message never attempt concurrently; a copy before the due time waits", async () => {
    const r = receiver("fail=always&delay=300");
    const d = await pendingDelivery(r.url);
    const schedule = { baseSeconds: 60, random: () => 0.5 };
    const outcomes = await Promise.all([attemptDelivery(env, db(), d.id, 1, { schedule }), attemptDelivery(env, db(), d.id, 1, { schedule })]);
    expect(await received(r.id)).toHaveLength(1);
    expect(outcomes.map((o) => o.kind)).toEqual(["retry", "retry"]);
    expect(await attemptsOf(db(), d.id)).toHaveLength(1);
    // The failed attempt scheduled the next one in 60 s; an early copy does not send, it waits.
    const early = await attemptDelivery(env, db(), d.id, 2, { schedule });
    expect(early.kind).toBe("retry");
    expect(early.kind === "retry" && early.delaySeconds).toBeGreaterThan(55);
    expect(await received(r.id)).toHaveLength(1);
    // Due (clock moved past next_attempt_at): attempt 2.
    const later = Date.now() + 61_000;
    await attemptDelivery(env, db(), d.id, 2, { schedule, now: () => later });
    expect((await attemptsOf(db(), d.id)).map((a) => a.attempt)).toEqual([1, 2]);
  });

  it("a message for a finished or unknown delivery is acknowledged without sending", async () => {
    const r = receiver();
    const d = await pendingDelivery(r.url);
    expect(await attemptDelivery(env, db(), d.id, 1)).toEqual({ kind: "done" });
    expect(await loadDelivery(db(), d.id)).toMatchObject({ status: "succeeded", lastStatusCode: 204, nextAttemptAt: null });
    expect(await attemptDelivery(env, db(), d.id, 2)).toEqual({ kind: "done" });
    expect(await attemptDelivery(env, db(), newId("webhookDelivery"), 1)).toEqual({ kind: "done" });
    expect(await received(r.id)).toHaveLength(1);
  });

  it("manual retry of a delivery still being attempted is 409 invalid_state", async () => {
    const d = await pendingDelivery(receiver().url);
    const res = await callJson(`/v1/webhook-deliveries/${d.id}/retry`, { method: "POST", headers: await sessionHeaders(d.tenantId) });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("invalid_state");
  });
});

describe("a batch of deliveries", () => {
  it("a slow receiver does not hold up the other deliveries of the batch: attempts run side by side", async () => {
    // They ran one after another: three hanging receivers of one tenant delayed another tenant's
    // webhook by 31.6 s (API probe of 2026-12-04).
    const slow = receiver("delay=3000");
    const fast = receiver();
    const [first, second] = [await pendingDelivery(slow.url), await pendingDelivery(fast.url)];
    const batch = createMessageBatch(
      "vfy-webhooks-local",
      [first, second].map((d) => ({ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body: { type: "deliver_webhook", v: 1, delivery_id: d.id } })),
    );
    const ctx = createExecutionContext();
    const started = Date.now();
    await handleQueue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toHaveLength(2);
    const [hit] = await received(fast.id);
    expect(hit!.at - started).toBeLessThan(2_000);
    expect(await loadDelivery(db(), second.id)).toMatchObject({ status: "succeeded" });
    expect(await loadDelivery(db(), first.id)).toMatchObject({ status: "succeeded" });
  });
});
