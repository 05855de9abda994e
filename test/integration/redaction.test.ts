import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { captureAnalyses, idempotencyKeys, imageHashes, outboundMessages, webhookDeliveries } from "../../src/db/schema";
import type { VerificationObject } from "../../src/durable-objects/verification-object";
import { verificationObject } from "../../src/durable-objects/verification-client";
import { newId } from "../../src/lib/ids";
import { verificationPrefix } from "../../src/storage/evidence";
import { call, callJson, createVerification, db, seedTenant, withVision, type TestTenant } from "../helpers/api";
import { captureByKey, captureInline, hasVerdict, inlineCapture, pollVerification, upload, uploadDepthMap } from "../helpers/capture";
import { uniqueJpeg } from "../helpers/images";
import { dashboard, signIn } from "../helpers/session";
import { persisted } from "../helpers/snapshot";
import { encodeDepthPng, encodeJpeg, encodePngRgb, naturalScene } from "../helpers/synth";
import { waitFor } from "../helpers/wait";
import { received, receiver } from "../helpers/webhooks";

/* POST /v1/verifications/{id}/redact: irreversible, idempotent, crash-safe erasure of the evidence. */

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant();
});

const PERSONAL = ["Jane Roe", "AB1234", "claims@example.com", "Blue hatchback", "dented the rear door", "Calle Mayor", "40.4168"];

async function objectKeys(id: string): Promise<string[]> {
  return (await env.EVIDENCE.list({ prefix: verificationPrefix(id) })).objects.map((o) => o.key);
}

const redact = (id: string, options: { key?: string; headers?: Record<string, string> } = { key: t.key }) =>
  callJson(`/v1/verifications/${id}/redact`, { method: "POST", ...options });

/** Every D1 copy of a verification's data outside its own row: where personal data could linger. */
async function storedCopies(tenantId: string, id: string): Promise<string> {
  const [p, analyses, deliveries, idempotent, messages] = await Promise.all([
    persisted(id),
    db().select().from(captureAnalyses).where(eq(captureAnalyses.verificationId, id)),
    db().select().from(webhookDeliveries).where(eq(webhookDeliveries.verificationId, id)),
    db().select().from(idempotencyKeys).where(eq(idempotencyKeys.tenantId, tenantId)),
    db().select().from(outboundMessages).where(eq(outboundMessages.verificationId, id)),
  ]);
  return JSON.stringify([p, analyses, deliveries, idempotent, messages]);
}

/** A verification that holds personal data everywhere it can, analysed, finalized and reviewed. */
async function fullyLoaded(idempotencyKey: string) {
  const r = receiver();
  const body = {
    steps: [
      { key: "front", type: "image", description: "Front", min: 1, max: 1 },
      { key: "docs", type: "upload", min: 1, max: 1 },
      { key: "policy", type: "text", required: true, validation: { max_length: 20, format: "alphanumeric_id" } },
    ],
    signals_required: ["screen", "reverse", "context"],
    context: { kind: "vehicle", summary: "Blue hatchback" },
    metadata: { customer: "Jane Roe" },
    notify_email: "claims@example.com",
    expected_location: "40.4168, -3.7038",
    expected_object: "Blue hatchback",
    webhook_url: r.url,
  };
  const v = await createVerification(t.key, body, { "Idempotency-Key": idempotencyKey }, { env: withVision() });
  const depth = await uploadDepthMap(v.id, encodeDepthPng(48, 36, (x, y) => 500 + 30 * Math.sin(x / 4 + y / 6)));
  await captureInline(v.id, encodeJpeg(naturalScene(320, 240, 41), 90), { step_key: "front", surface: "John Doe's kitchen table", location: { lat: 40.4168, lng: -3.7038, accuracy_m: 8 }, forensic_buffer_key: depth });
  await upload(v.id); // an orphan: uploaded, never captured (minted while a slot is still free)
  await captureByKey(v.id, encodePngRgb(naturalScene(120, 90, 42)), "image/png", { step_key: "docs" });
  expect((await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "policy", value: "AB1234" } })).status).toBe(200);
  await pollVerification(t.key, v.id, hasVerdict);
  expect((await callJson(`/v1/verifications/${v.id}/finalize`, { key: t.key, body: { narrative: "The storm dented the rear door at Calle Mayor." } })).status).toBe(200);
  const reviewer = await signIn(t.id);
  expect((await callJson(`/v1/verifications/${v.id}/review`, { body: { decision: "approved", note: "Jane Roe called to confirm." }, headers: dashboard(reviewer.cookie) })).status).toBe(200);
  // Wait for the deliveries (their frozen bodies hold the answers) and the completion email.
  await waitFor(async () => ((await received(r.id)).length >= 6 ? true : undefined), { what: "webhooks before redaction" });
  await waitFor(async () => ((await db().select().from(outboundMessages).where(eq(outboundMessages.verificationId, v.id))).length > 0 ? true : undefined), { what: "notify email" });
  return { v, body, receiver: r };
}

describe("redaction", () => {
  it("empties the bucket prefix and clears every listed field; ids, statuses, timestamps, digests and the verdict remain", async () => {
    const { v, body, receiver: r } = await fullyLoaded("redact-full-1");
    const before = await persisted(v.id);
    const captureIds = before.captures.map((c) => c.id);
    expect((await objectKeys(v.id)).length).toBeGreaterThanOrEqual(6); // 2 captures, 2 thumbnails, a depth map, an orphan
    // Both captures are indexed (a whole-frame row each, plus their crop windows).
    const indexed = await db().select().from(imageHashes).where(inArray(imageHashes.captureId, captureIds));
    expect(new Set(indexed.filter((h) => h.region === "full").map((h) => h.captureId))).toEqual(new Set(captureIds));
    const shown = (await callJson(`/v1/verifications/${v.id}`, { key: t.key })).body;
    const urlBefore = (await callJson(`/v1/verifications/${v.id}/captures`, { key: t.key })).body.items[0].image_url;
    const storedBefore = await storedCopies(t.id, v.id);
    for (const text of PERSONAL) expect(storedBefore, text).toContain(text);

    const res = await redact(v.id);
    expect(res.status).toBe(200);
    const tomb = res.body;
    expect(tomb.redacted_at).toEqual(expect.any(String));
    for (const field of ["id", "status", "created_at", "expires_at", "completed_at", "captures_count", "verdict", "record_seal", "submitted_at"]) {
      expect(tomb[field], field).toEqual(shown[field]);
    }
    expect(tomb.answers).toBeUndefined();
    expect(tomb.narrative).toBeUndefined();
    expect(tomb.case_analysis).toBeUndefined();
    expect(tomb.location_match).toBeUndefined();
    expect(tomb.object_match).toBeUndefined();
    expect(Object.keys(tomb.config).sort()).toEqual(["max_captures", "signals_required", "steps", "webhook_url"]);
    expect(tomb.review).toEqual({ decision: "approved", by: shown.review.by, at: shown.review.at });
    expect(tomb.captures.map((c: any) => c.id)).toEqual(captureIds);

    expect(await objectKeys(v.id)).toEqual([]);
    // A download URL handed out before is dead at once, its ETag notwithstanding.
    const gone = await callJson(new URL(urlBefore).pathname);
    expect(gone.status).toBe(404);
    const after = await persisted(v.id);
    expect(after.answers).toEqual([]);
    expect(after.captures.map((c) => [c.id, c.sha256, c.location])).toEqual(before.captures.map((c) => [c.id, c.sha256, null]));
    // The client's free text about the surface goes too (webhook probe of 2026-12-07: it was kept).
    expect(before.captures.map((c) => c.surface)).toContain("John Doe's kitchen table");
    expect(after.captures.map((c) => c.surface)).toEqual(before.captures.map(() => null));
    expect(await db().select().from(imageHashes).where(inArray(imageHashes.captureId, captureIds))).toEqual([]);
    const analyses = await db().select().from(captureAnalyses).where(eq(captureAnalyses.verificationId, v.id));
    expect(analyses.map((a) => [(a.result as any).redacted, a.thumbnail])).toEqual([[true, null], [true, null]]);
    const redactedEvent = after.events.find((e) => e.name === "verification.redacted")!;
    expect(redactedEvent.payload).toEqual({ by: expect.stringMatching(/^key_/) });
    expect(after.events.find((e) => e.name === "verification.case.completed")!.payload).toEqual({});
    expect(after.events.find((e) => e.name === "verification.reviewed")!.payload).toEqual({ decision: "approved", by: shown.review.by });

    // No stored copy anywhere still holds what the person or the tenant supplied.
    const storedAfter = await storedCopies(t.id, v.id);
    for (const text of PERSONAL) expect(storedAfter, text).not.toContain(text);
    expect(JSON.stringify(tomb)).not.toContain("Jane Roe");

    // An idempotent replay of the creation now answers the tombstone.
    const replay = await callJson("/v1/verifications", { key: t.key, body, headers: { "Idempotency-Key": "redact-full-1" } });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replay.body.redacted_at).toBe(tomb.redacted_at);

    // The captures keep their ids and digests, lose their bytes and the analysis details.
    const captures = (await callJson(`/v1/verifications/${v.id}/captures`, { key: t.key })).body.items;
    for (const c of captures) {
      expect(c.redacted_at).toBe(tomb.redacted_at);
      expect(c.image_url).toBeUndefined();
      expect(c.thumbnail_url).toBeUndefined();
      expect(c.credentials_url).toBeUndefined();
      expect(c.depth_map_url).toBeUndefined();
      expect(c.location).toBeUndefined();
      expect(c.analysis.status).toBe("completed");
      expect(Object.keys(c.analysis.signals)).toEqual(["screen_detection", "reverse_search", "context_match"]);
      for (const s of Object.values(c.analysis.signals) as any[]) for (const e of s.evidence ?? []) expect(e.detail).toBeUndefined();
    }
    expect(captures.map((c: any) => c.sha256)).toEqual(before.captures.map((c) => c.sha256));

    // Timeline and webhook.
    const timeline = (await callJson(`/v1/verifications/${v.id}/events`, { key: t.key })).body.events;
    expect(timeline.at(-1).event_name).toBe("verification.redacted");
    const hook = await waitFor(async () => (await received(r.id)).map((h) => JSON.parse(h.body)).find((b) => b.type === "verification.redacted"), { what: "redacted webhook" });
    expect(hook.id).toBe(redactedEvent.id);
    expect(hook.data.object.redacted_at).toBe(tomb.redacted_at);
    expect(JSON.stringify(hook)).not.toContain("Jane Roe");

    // A webhook sent before the redaction, retried after it: same id, the verification as it now reads.
    const deliveries = (await callJson(`/v1/verifications/${v.id}/webhook-deliveries`, { key: t.key })).body.items;
    const earlier = deliveries.find((d: any) => d.event_type === "verification.created");
    const sentBefore = (await received(r.id)).length;
    expect((await callJson(`/v1/webhook-deliveries/${earlier.id}/retry`, { method: "POST", key: t.key })).status).toBe(200);
    const resent = await waitFor(async () => (await received(r.id)).slice(sentBefore).map((h) => JSON.parse(h.body)).find((b) => b.type === "verification.created"), {
      what: "the retried webhook",
    });
    expect(resent.data.object.redacted_at).toBe(tomb.redacted_at);
    expect(JSON.stringify(resent)).not.toContain("Jane Roe");

    // Its certificate is the one of the state its object shows (the redacted one), as the API serves it,
    // not the one signed at completion.
    const completed = deliveries.find((d: any) => d.event_type === "verification.completed");
    const sentBeforeCompleted = (await received(r.id)).length;
    expect((await callJson(`/v1/webhook-deliveries/${completed.id}/retry`, { method: "POST", key: t.key })).status).toBe(200);
    const resentCompleted = await waitFor(
      async () => (await received(r.id)).slice(sentBeforeCompleted).map((h) => JSON.parse(h.body)).find((b) => b.type === "verification.completed"),
      { what: "the retried completed webhook" },
    );
    const current = (await callJson(`/v1/verifications/${v.id}/certificate`, { key: t.key })).body;
    expect(resentCompleted.data.object.redacted_at).toBe(tomb.redacted_at);
    expect(resentCompleted.data.certificate.sequence).toBe(current.sequence);
    expect(resentCompleted.data.certificate.payload.verification.redacted_at).toBe(tomb.redacted_at);
  });

  it("is idempotent: a second call answers the same state and records nothing more", async () => {
    const v = await createVerification(t.key, { max_captures: 2, metadata: { ref: "Jane Roe" } });
    await captureInline(v.id, uniqueJpeg());
    const first = await redact(v.id);
    const second = await redact(v.id);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const events = (await persisted(v.id)).events.filter((e) => e.name === "verification.redacted");
    expect(events).toHaveLength(1);
  });

  it("refuses the link's read and every later capture-flow write with 410 redacted, an upload URL minted before included", async () => {
    const v = await createVerification(t.key, {
      steps: [
        { key: "front", type: "image", description: "Front", min: 1, max: 2 },
        { key: "note", type: "text", required: false, validation: { max_length: 50, format: "free_text" } },
      ],
    });
    await captureInline(v.id, uniqueJpeg());
    const minted = (await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/jpeg" } })).body;
    expect((await callJson(`/v1/verify/${v.id}`)).status).toBe(200);
    expect((await redact(v.id)).status).toBe(200);
    const before = await persisted(v.id);

    // The link's own read says the request was withdrawn rather than offering its steps again.
    const read = await callJson(`/v1/verify/${v.id}`);
    expect(read.status).toBe(410);
    expect(read.body.error.code).toBe("redacted");

    const writes = [
      () => inlineCapture(v.id),
      () => callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/jpeg" } }),
      () => callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "note", value: "hello" } }),
      () => callJson(`/v1/verifications/${v.id}/submit`, { method: "POST" }),
      () => callJson(`/v1/verifications/${v.id}/progress`, { body: { schema_version: 1, kind: "abandoned", step: "capturing", elapsed_ms: 5 } }),
      async () => {
        const res = await call(new URL(minted.upload_url).pathname, { method: "PUT", rawBody: uniqueJpeg(), headers: { "Content-Type": "image/jpeg" } });
        return { status: res.status, body: await res.json() as any };
      },
    ];
    for (const write of writes) {
      const res = await write();
      expect(res.status).toBe(410);
      expect(res.body.error.code).toBe("redacted");
    }
    const after = await persisted(v.id);
    expect(after.row.version).toBe(before.row.version);
    expect(after.objectKeys).toEqual([]);
    // Finalize and review are refused too: nothing new may be attached to a tombstone.
    expect((await callJson(`/v1/verifications/${v.id}/finalize`, { key: t.key, body: { narrative: "late" } })).body.error.code).toBe("redacted");
  });

  it("resumes after a failure between the D1 and R2 steps: the alarm empties the prefix", async () => {
    const v = await createVerification(t.key, { max_captures: 2 });
    await captureInline(v.id, uniqueJpeg());
    await upload(v.id);
    const stub = verificationObject(env, v.id);
    await runInDurableObject(stub, (instance: VerificationObject) => {
      (instance as any).realPurger = instance.purger;
      instance.purger = {
        async purge() {
          throw new Error("bucket unavailable (injected)");
        },
      };
    });
    const res = await redact(v.id);
    expect(res.status).toBe(200);
    expect(res.body.redacted_at).toBeDefined();
    expect((await persisted(v.id)).row.redactedAt).not.toBeNull();
    expect((await objectKeys(v.id)).length).toBe(2);
    const pending = await runInDurableObject(stub, async (_i: VerificationObject, state) => ({ intent: await state.storage.get("redaction"), alarm: await state.storage.getAlarm() }));
    expect(pending.intent).toMatchObject({ by: expect.stringMatching(/^key_/) });
    expect(pending.alarm).not.toBeNull();
    expect(pending.alarm!).toBeLessThan(Date.now() + 60_000);

    await runInDurableObject(stub, (instance: VerificationObject) => {
      instance.purger = (instance as any).realPurger;
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await objectKeys(v.id)).toEqual([]);
    expect(await runInDurableObject(stub, (_i: VerificationObject, state) => state.storage.get("redaction"))).toBeUndefined();
    expect((await persisted(v.id)).events.filter((e) => e.name === "verification.redacted")).toHaveLength(1);
  });

  it("an intent stored before a crash (nothing written yet) is carried out by the alarm", async () => {
    const v = await createVerification(t.key, { max_captures: 2, notify_email: "claims@example.com" });
    await captureInline(v.id, uniqueJpeg());
    const stub = verificationObject(env, v.id);
    await runInDurableObject(stub, async (_i: VerificationObject, state) => {
      await state.storage.put("redaction", { by: "usr_01JCRASHEDCRASHEDCRASHED00", attempts: 1, retryAt: 0 });
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const after = await persisted(v.id);
    expect(after.row.redactedAt).not.toBeNull();
    expect(after.row.config.notify_email).toBeUndefined();
    expect(after.events.find((e) => e.name === "verification.redacted")!.payload).toEqual({ by: "usr_01JCRASHEDCRASHEDCRASHED00" });
    expect(await objectKeys(v.id)).toEqual([]);
  });

  it("the final sweep clears what a writer that read the verification just before left after the redaction", async () => {
    const v = await createVerification(t.key, { max_captures: 2 });
    const { body } = await inlineCapture(v.id);
    const captureId = body.captures[0].id;
    await redact(v.id);
    // Late writers: a thumbnail, a result with EXIF, a hash in the reuse index.
    await env.EVIDENCE.put(`${verificationPrefix(v.id)}${captureId}.thumb.jpg`, uniqueJpeg());
    await db()
      .insert(captureAnalyses)
      .values({ captureId, verificationId: v.id, status: "completed", result: { signals: {}, metadata: { make: "Canon" }, dimensions: null }, error: null, analyzedAt: Date.now(), thumbnail: { key: "k" } })
      .onConflictDoUpdate({ target: captureAnalyses.captureId, set: { result: { signals: {}, metadata: { make: "Canon" }, dimensions: null }, thumbnail: { key: "k" } } });
    await db().insert(imageHashes).values({ captureId, verificationId: v.id, tenantId: t.id, algorithm: "dhash64", hash: "00ff00ff00ff00ff", band0: 1, band1: 2, band2: 3, band3: 4, createdAt: Date.now() });
    // …and a webhook body and a notification built from the verification as it was read just before.
    const now = Date.now();
    await db().insert(webhookDeliveries).values({
      id: newId("webhookDelivery"), eventId: newId("event"), verificationId: v.id, tenantId: t.id, eventType: "verification.completed",
      url: "https://example.com/hook", payload: JSON.stringify({ data: { object: { id: v.id, metadata: { customer: "Jane Roe" } } } }),
      status: "pending", attempts: 0, createdAt: now, updatedAt: now,
    });
    await db().insert(outboundMessages).values({
      id: newId("message"), dedupeKey: `email:${newId("event")}`, channel: "email", recipient: "claims@example.com", subject: "Done", body: "Jane Roe",
      verificationId: v.id, provider: "dev-outbox", status: "recorded", createdAt: now,
    });
    // …and the row itself, written under its version CAS like any writer (a narrative, a case analysis, a check quoting the address).
    await env.DB.prepare("UPDATE verifications SET version = version + 1, narrative = ?, case_analysis = ?, location_match = ? WHERE id = ?")
      .bind("Jane Roe dented the rear door", JSON.stringify({ summary: "Jane Roe" }), JSON.stringify({ address: "Calle Mayor" }), v.id)
      .run();

    const stub = verificationObject(env, v.id);
    await runInDurableObject(stub, (instance: VerificationObject) => {
      instance.clock = () => Date.now() + 12 * 60 * 1000;
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await objectKeys(v.id)).toEqual([]);
    expect(await db().select().from(imageHashes).where(eq(imageHashes.captureId, captureId))).toEqual([]);
    const [analysis] = await db().select().from(captureAnalyses).where(eq(captureAnalyses.captureId, captureId));
    expect(JSON.stringify(analysis)).not.toContain("Canon");
    expect(analysis!.thumbnail).toBeNull();
    const left = JSON.stringify([
      await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.verificationId, v.id)),
      await db().select().from(outboundMessages).where(eq(outboundMessages.verificationId, v.id)),
    ]);
    expect(left).not.toContain("Jane Roe");
    expect(left).not.toContain("claims@example.com");
    const { row } = await persisted(v.id);
    expect([row.narrative, row.caseAnalysis, row.locationMatch]).toEqual([null, null, null]);
    expect(JSON.stringify(row)).not.toMatch(/Jane Roe|Calle Mayor/);
  });

  it("a case analysis that finishes after the redaction is refused, not written onto the tombstone", async () => {
    const v = await createVerification(t.key, { max_captures: 1 });
    await inlineCapture(v.id);
    const stub = verificationObject(env, v.id);
    expect((await stub.finalize(v.id, "Jane Roe dented the rear door")).ok).toBe(true);
    expect((await redact(v.id)).status).toBe(200);
    const late = await stub.recordCaseAnalysis(v.id, { summary: "Jane Roe's blue hatchback" }, []);
    expect(late).toMatchObject({ ok: false, error: { code: "redacted" } });
    const p = await persisted(v.id);
    expect(p.row.caseAnalysis).toBeNull();
    expect(p.events.map((e) => e.name)).not.toContain("verification.case.analyzed");
  });

  it("full key or session; another tenant's is 404; a publishable key is 403", async () => {
    const v = await createVerification(t.key, { max_captures: 1 });
    expect((await redact(v.id, { key: t.publishableKey })).status).toBe(403);
    const other = await seedTenant("Other");
    expect((await redact(v.id, { key: other.key })).status).toBe(404);
    const operator = await signIn(t.id);
    expect((await persisted(v.id)).row.redactedAt).toBeNull();
    const res = await redact(v.id, { headers: dashboard(operator.cookie) });
    expect(res.status).toBe(200);
    expect((await persisted(v.id)).events.find((e) => e.name === "verification.redacted")!.payload).toEqual({ by: operator.userId });
  });
});
