import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { queueFailures } from "../../src/db/schema";
import { findTenant } from "../../src/domain/tenants/tenants";
import { WEBHOOK_MAX_RETRIES } from "../../src/domain/webhooks/schedule";
import { call, callJson, createVerification, db, seedTenant } from "../helpers/api";
import { toBase64, uniqueJpeg } from "../helpers/images";
import { waitFor } from "../helpers/wait";
import { received, receiver, recover, sessionHeaders } from "../helpers/webhooks";

/* End to end over the real local queues: events queue → delivery → webhooks queue → loopback receiver. */

async function deliveries(key: string, verificationId: string): Promise<any[]> {
  const res = await callJson(`/v1/verifications/${verificationId}/webhook-deliveries`, { key });
  expect(res.status).toBe(200);
  return res.body.items;
}

async function settled(key: string, verificationId: string, count: number, timeoutMs = 20_000): Promise<any[]> {
  return waitFor(
    async () => {
      const items = await deliveries(key, verificationId);
      return items.length >= count && items.every((d) => d.status !== "pending") ? items : undefined;
    },
    { timeoutMs, what: `${count} settled deliveries` },
  );
}

async function secretOf(tenantId: string): Promise<string> {
  return (await findTenant(db(), tenantId))!.webhookSecret;
}

describe("webhook delivery", () => {
  it("signs per Standard Webhooks, verified with the standardwebhooks package; the body carries the Verification with answers", async () => {
    const t = await seedTenant();
    const r = receiver();
    const v = await createVerification(t.key, {
      steps: [
        { key: "plate", type: "text", required: true, validation: { max_length: 10, format: "alphanumeric_id" } },
        // Room for a second capture: never ready, so no verification.completed races the two deliveries counted here.
        { key: "front", type: "image", description: "Front", min: 1, max: 2 },
      ],
      webhook_url: r.url,
      metadata: { order: "A-1" },
    });
    expect((await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "plate", value: "AB-123" } })).status).toBe(200);
    expect((await callJson(`/v1/verifications/${v.id}/captures`, { body: { image_base64: toBase64(uniqueJpeg()) } })).status).toBe(201);

    const items = await settled(t.key, v.id, 2);
    expect(items.map((d) => d.event_type).sort()).toEqual(["verification.capture.persisted", "verification.created"]);
    const hits = await received(r.id);
    expect(hits).toHaveLength(2);
    const wh = new Webhook(await secretOf(t.id));
    const bodies = hits.map((h) => wh.verify(h.body, h.headers) as any);
    for (const [i, body] of bodies.entries()) {
      expect(body.id).toBe(hits[i]!.headers["webhook-id"]);
      expect(Object.keys(body).sort()).toEqual(["created_at", "data", "id", "type"]);
      expect(body.data.object.id).toBe(v.id);
      expect(hits[i]!.headers["content-type"]).toBe("application/json");
    }
    const persisted = bodies.find((b) => b.type === "verification.capture.persisted");
    expect(persisted.data.object.answers.plate.value).toBe("AB-123");
    expect(persisted.data.object.config.metadata).toEqual({ order: "A-1" });
    // The webhook id is the audit timeline's event id.
    const timeline = await callJson(`/v1/verifications/${v.id}/events`, { key: t.key });
    const byName = Object.fromEntries(timeline.body.events.map((e: any) => [e.event_name, e.event_id]));
    expect(persisted.id).toBe(byName["verification.capture.persisted"]);
    expect(persisted.created_at).toBe(timeline.body.events.find((e: any) => e.event_id === persisted.id).occurred_at);
    // A receiver holding another secret rejects it.
    expect(() => new Webhook(`whsec_${btoa("another secret of enough length!")}`).verify(hits[0]!.body, hits[0]!.headers)).toThrow();
  });

  it("a receiver failing the first 3 attempts gets the event exactly once as one webhook-id, every attempt logged", async () => {
    const t = await seedTenant();
    const r = receiver("fail=3&status=503");
    const v = await createVerification(t.key, { max_captures: 1, webhook_url: r.url });
    const [delivery] = await settled(t.key, v.id, 1);

    const hits = await received(r.id);
    expect(hits.map((h) => h.answered)).toEqual([503, 503, 503, 204]);
    expect(new Set(hits.map((h) => h.headers["webhook-id"]))).toEqual(new Set([delivery.event_id]));
    expect(new Set(hits.map((h) => h.body)).size).toBe(1);
    expect(hits.filter((h) => h.answered < 300)).toHaveLength(1);

    expect(delivery).toMatchObject({ status: "succeeded", attempt_count: 4, last_status_code: 204, event_type: "verification.created", url: r.url });
    expect(delivery.delivered_at).toBeDefined();
    expect(delivery.last_error).toBeUndefined();
    expect(delivery.attempts.map((a: any) => [a.attempt, a.status_code, a.error ?? null])).toEqual([
      [1, 503, "HTTP 503"],
      [2, 503, "HTTP 503"],
      [3, 503, "HTTP 503"],
      [4, 204, null],
    ]);
    for (const a of delivery.attempts.slice(0, 3)) expect(Date.parse(a.next_attempt_at)).toBeGreaterThanOrEqual(Date.parse(a.attempted_at));
    expect(delivery.attempts[3].next_attempt_at).toBeUndefined();
    for (const a of delivery.attempts) expect(a.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it("a receiver that never recovers ends in the dead-letter queue; a manual retry then delivers the same event", async () => {
    const t = await seedTenant();
    const r = receiver("fail=always");
    const v = await createVerification(t.key, { max_captures: 1, webhook_url: r.url });
    // 1 attempt + max_retries retries, then the real dead-letter consumer marks it failed.
    const all = WEBHOOK_MAX_RETRIES + 1;
    const [failed] = await settled(t.key, v.id, 1, 80_000);
    expect(failed).toMatchObject({ status: "failed", attempt_count: all, last_status_code: 500, last_error: "HTTP 500" });
    expect(failed.next_attempt_at).toBeUndefined();
    expect(failed.attempts).toHaveLength(all);
    expect(failed.attempts.slice(0, all - 1).every((a: any) => a.next_attempt_at !== undefined)).toBe(true);
    expect(failed.attempts[all - 1].next_attempt_at).toBeUndefined();
    const dead = await db().select().from(queueFailures).where(eq(queueFailures.queue, "vfy-dead-letter-local"));
    expect(dead.some((row) => JSON.parse(row.body).delivery_id === failed.id)).toBe(true);
    expect(await received(r.id)).toHaveLength(all);

    // Another tenant cannot see or retry it.
    const other = await seedTenant("Other");
    expect((await callJson(`/v1/webhook-deliveries/${failed.id}/retry`, { key: other.key, method: "POST" })).status).toBe(404);
    expect((await callJson(`/v1/verifications/${v.id}/webhook-deliveries`, { key: other.key })).status).toBe(404);

    await recover(r.id);
    const retried = await callJson(`/v1/webhook-deliveries/${failed.id}/retry`, { key: t.key, method: "POST" });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ id: failed.id, status: "pending", attempt_count: all });
    const [delivered] = await settled(t.key, v.id, 1);
    expect(delivered).toMatchObject({ id: failed.id, status: "succeeded", attempt_count: all + 1, last_status_code: 204 });
    const hits = await received(r.id);
    expect(hits).toHaveLength(all + 1);
    expect(hits[all]!.answered).toBe(204);
    expect(new Set(hits.map((h) => h.headers["webhook-id"]))).toEqual(new Set([failed.event_id]));
    expect(new Webhook(await secretOf(t.id)).verify(hits[all]!.body, hits[all]!.headers)).toMatchObject({ id: failed.event_id });
  }, 120_000);

  it("manual retry: replays a delivered event, 404 for unknown ids; the dashboard session may retry; publishable keys may not", async () => {
    const t = await seedTenant();
    const r = receiver();
    const v = await createVerification(t.key, { max_captures: 1, webhook_url: r.url });
    const [delivery] = await settled(t.key, v.id, 1);
    expect(delivery.status).toBe("succeeded");

    expect((await callJson(`/v1/webhook-deliveries/whd_01JD2Y4N9M6Q8R0S2T4V6W8X0Z/retry`, { key: t.key, method: "POST" })).status).toBe(404);
    expect((await callJson(`/v1/webhook-deliveries/nonsense/retry`, { key: t.key, method: "POST" })).status).toBe(404);
    expect((await callJson(`/v1/webhook-deliveries/${delivery.id}/retry`, { key: t.publishableKey, method: "POST" })).status).toBe(403);
    expect((await callJson(`/v1/verifications/${v.id}/webhook-deliveries`)).status).toBe(401);

    // Replaying a delivered event is allowed: same id, same body.
    const replay = await callJson(`/v1/webhook-deliveries/${delivery.id}/retry`, { method: "POST", headers: await sessionHeaders(t.id) });
    expect(replay.status).toBe(200);
    const [replayed] = await settled(t.key, v.id, 1);
    expect(replayed).toMatchObject({ status: "succeeded", attempt_count: 2 });
    const hits = await received(r.id);
    expect(hits.map((h) => h.headers["webhook-id"])).toEqual([delivery.event_id, delivery.event_id]);
    expect(hits[1]!.body).toBe(hits[0]!.body);
  });

  it("the session lists deliveries too; without credentials it is 401", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, { max_captures: 1 });
    const listed = await callJson(`/v1/verifications/${v.id}/webhook-deliveries`, { headers: await sessionHeaders(t.id) });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([]);
    const res = await call(`/v1/verifications/${v.id}/webhook-deliveries`);
    expect(res.status).toBe(401);
    await res.text();
  });

  it("documents the routes and the outbound webhook in the OpenAPI document", async () => {
    const doc = (await callJson("/v1/openapi.json")).body;
    for (const path of ["/v1/verifications/{id}/webhook-deliveries", "/v1/webhook-deliveries/{id}/retry", "/v1/webhook-secret/rotate"]) {
      expect(doc.paths[path]).toBeDefined();
    }
    const [webhook] = Object.values(doc.webhooks) as any[];
    expect(webhook.post.requestBody.content["application/json"].schema.$ref).toBe("#/components/schemas/WebhookEvent");
    expect(doc.components.schemas.WebhookEvent.properties.type.enum).toEqual([
      "verification.created",
      "verification.capture.persisted",
      "verification.completed",
      "verification.expired",
      "verification.failed",
      "verification.case.completed",
      "verification.case.analyzed",
      "verification.reviewed",
      "verification.redacted",
    ]);
  });
});
