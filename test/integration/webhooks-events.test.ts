import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { deliveryByEvent } from "../../src/db/webhooks";
import { verificationObject } from "../../src/durable-objects/verification-client";
import { handleDomainEvent } from "../../src/queues/events.consumer";
import { call, callJson, createVerification, db, eventually, seedTenant } from "../helpers/api";
import { toBase64, uniqueJpeg } from "../helpers/images";
import { waitFor } from "../helpers/wait";
import { received, receiver } from "../helpers/webhooks";

/* Which domain events become which webhooks (real queues, loopback receiver). */

async function timeline(key: string, id: string): Promise<Array<{ event_id: string; event_name: string; occurred_at: string; payload?: any }>> {
  return (await callJson(`/v1/verifications/${id}/events`, { key })).body.events;
}

async function deliveredTypes(receiverId: string, count: number): Promise<string[]> {
  const hits = await waitFor(async () => {
    const got = await received(receiverId);
    return got.length >= count ? got : undefined;
  }, { what: `${count} webhooks` });
  return hits.map((h) => JSON.parse(h.body).type);
}

function asDomainEvent(e: { event_id: string; event_name: string; occurred_at: string; payload?: any }, verificationId: string, tenantId: string) {
  return { id: e.event_id, name: e.event_name, verification_id: verificationId, tenant_id: tenantId, occurred_at: Date.parse(e.occurred_at), payload: e.payload ?? null };
}

describe("domain events → webhook types", () => {
  it("created, capture.persisted, completed and case.completed; nothing for the internal ready event", async () => {
    const t = await seedTenant();
    const r = receiver();
    const v = await createVerification(t.key, { max_captures: 1, webhook_url: r.url });
    expect((await callJson(`/v1/verifications/${v.id}/captures`, { body: { image_base64: toBase64(uniqueJpeg()) } })).status).toBe(201);
    const stub = verificationObject(env, v.id);
    const verdict = { label: "verified", score: 0.9, signals: {} };
    expect((await stub.complete(v.id, { verdict })).ok).toBe(true);
    expect((await stub.finalize(v.id, "Rear bumper scratched; photos consistent.")).ok).toBe(true);

    const types = await deliveredTypes(r.id, 4);
    expect(types.sort()).toEqual(["verification.capture.persisted", "verification.case.completed", "verification.completed", "verification.created"]);
    const hits = await received(r.id);
    const completed = JSON.parse(hits.find((h) => JSON.parse(h.body).type === "verification.completed")!.body);
    expect(completed.data.object.status).toBe("completed");
    // Served like the API: a stored verdict without the assessment fields gets them derived (no signal evaluated: none).
    expect(completed.data.object.verdict).toEqual({ ...verdict, assessment: "none", not_assessed: [] });
    const caseCompleted = JSON.parse(hits.find((h) => JSON.parse(h.body).type === "verification.case.completed")!.body);
    expect(caseCompleted.data.object.narrative).toBe("Rear bumper scratched; photos consistent.");

    const ready = (await timeline(t.key, v.id)).find((e) => e.event_name === "verification.ready")!;
    expect(ready).toBeDefined();
    expect(await deliveryByEvent(db(), ready.event_id)).toBeUndefined();
  });

  it("failed and expired", async () => {
    const t = await seedTenant();
    const r = receiver();
    const failing = await createVerification(t.key, { max_captures: 1, webhook_url: r.url });
    expect((await verificationObject(env, failing.id).fail(failing.id, "unreadable evidence")).ok).toBe(true);
    const expiring = await createVerification(t.key, { max_captures: 1, webhook_url: r.url, expires_in_seconds: 1 });
    // The expiry alarm (armed by the events consumer) fires on its own once due.
    await eventually(async () => (await callJson(`/v1/verifications/${expiring.id}`, { key: t.key })).body.status === "expired", "the expiry alarm");

    const types = await deliveredTypes(r.id, 4);
    expect(types.sort()).toEqual(["verification.created", "verification.created", "verification.expired", "verification.failed"]);
    const bodies = (await received(r.id)).map((h) => JSON.parse(h.body));
    expect(bodies.find((b) => b.type === "verification.failed").data.object).toMatchObject({ id: failing.id, status: "failed", failure_reason: "unreadable evidence" });
    expect(bodies.find((b) => b.type === "verification.expired").data.object).toMatchObject({ id: expiring.id, status: "expired" });
  });

  it("abandoned, answer.recorded and submitted send nothing", async () => {
    const t = await seedTenant();
    const r = receiver();
    const v = await createVerification(t.key, {
      steps: [
        { key: "front", type: "image", description: "Front", min: 0, max: 2 },
        { key: "note", type: "text", required: false, validation: { max_length: 50, format: "free_text" } },
      ],
      webhook_url: r.url,
    });
    const progress = await call(`/v1/verifications/${v.id}/progress`, { body: { schema_version: 1, kind: "abandoned", step: "landing", elapsed_ms: 900 } });
    expect(progress.status).toBe(204);
    await progress.text();
    expect((await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "note", value: "hello" } })).status).toBe(200);
    expect((await callJson(`/v1/verifications/${v.id}/captures`, { body: { image_base64: toBase64(uniqueJpeg()) } })).status).toBe(201);
    expect((await callJson(`/v1/verifications/${v.id}/submit`, { body: {} })).status).toBe(200);

    const events = await timeline(t.key, v.id);
    const internal = events.filter((e) => ["verification.abandoned", "verification.answer.recorded", "verification.submitted", "verification.ready"].includes(e.event_name));
    expect(internal.map((e) => e.event_name).sort()).toEqual([
      "verification.abandoned",
      "verification.answer.recorded",
      "verification.ready",
      "verification.submitted",
    ]);
    // Handled again directly (as a redelivery would be): still nothing.
    for (const e of internal) await handleDomainEvent(asDomainEvent(e, v.id, t.id), env);
    const types = await deliveredTypes(r.id, 2);
    expect(types.sort()).toEqual(["verification.capture.persisted", "verification.created"]);
    for (const e of internal) expect(await deliveryByEvent(db(), e.event_id)).toBeUndefined();
  });

  it("a redelivered domain event reuses its delivery: one webhook-id, sent once", async () => {
    const t = await seedTenant();
    const r = receiver();
    const v = await createVerification(t.key, { max_captures: 1, webhook_url: r.url });
    const [created] = await timeline(t.key, v.id);
    await deliveredTypes(r.id, 1);
    const first = await deliveryByEvent(db(), created!.event_id);
    await handleDomainEvent(asDomainEvent(created!, v.id, t.id), env);
    await handleDomainEvent(asDomainEvent(created!, v.id, t.id), env);
    expect(await deliveryByEvent(db(), created!.event_id)).toEqual(first);
    // Give a wrongly re-queued copy time to arrive (queue batches flush every second).
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await received(r.id)).toHaveLength(1);
  });

  it("no webhook_url, no delivery", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, { max_captures: 1 });
    const [created] = await timeline(t.key, v.id);
    await handleDomainEvent(asDomainEvent(created!, v.id, t.id), env);
    expect(await deliveryByEvent(db(), created!.event_id)).toBeUndefined();
  });
});
