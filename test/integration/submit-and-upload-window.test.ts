import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { outboundMessages } from "../../src/db/schema";
import { deliveryByEvent } from "../../src/db/webhooks";
import type { VerificationObject } from "../../src/durable-objects/verification-object";
import { verificationObject } from "../../src/durable-objects/verification-client";
import { CAPTURE_WINDOW_MS } from "../../src/model/verification/orphan-sweep";
import { callJson, createVerification, db, seedTenant, type TestTenant } from "../helpers/api";
import { upload } from "../helpers/capture";
import { uniqueJpeg } from "../helpers/images";
import { persisted } from "../helpers/snapshot";
import { waitFor } from "../helpers/wait";
import { received, receiver } from "../helpers/webhooks";

/*
 * CONTRACT "Decisions of the fifth release": submit follows the rule of `min` and required answers,
 * also with no capture at all (then `failed`, `no_evidence`: nothing evaluated is never a verdict);
 * a capture past its upload's window is 409 `upload_expired` (410 is the dead link's); a retry of a
 * persisted image_key is answered whenever it comes.
 */

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant();
});

const ALL_OPTIONAL = [
  { key: "front", type: "image", description: "Front", min: 0, max: 2 },
  { key: "docs", type: "upload", description: "Papers", min: 0, max: 1, accept: ["image/jpeg"], max_size_bytes: 2_000_000 },
  { key: "plate", type: "text", required: true, description: "Plate", validation: { max_length: 10, format: "alphanumeric_id" } },
  { key: "notes", type: "text", required: false, validation: { max_length: 50, format: "free_text" } },
];

const submit = (id: string) => callJson(`/v1/verifications/${id}/submit`, { method: "POST" });
const view = (id: string) => callJson(`/v1/verify/${id}`);
const captureKey = (id: string, up: { image_key: string; sha256: string }, extra: Record<string, unknown> = {}) =>
  callJson(`/v1/verifications/${id}/captures`, { body: { image_key: up.image_key, image_sha256: up.sha256, ...extra } });

async function setClock(id: string, at: number | null) {
  await runInDurableObject(verificationObject(env, id), (instance: VerificationObject) => {
    instance.clock = at === null ? () => Date.now() : () => at;
  });
}

describe("submit with no capture", () => {
  it("is taken once every min and required answer holds, and ends failed with no_evidence: events, webhook and email say so, no verdict", async () => {
    const r = receiver();
    const v = await createVerification(t.key, { steps: ALL_OPTIONAL, webhook_url: r.url, notify_email: "ops@acme.example" });

    // The required question is not answered: not ready, and submit says why.
    expect((await view(v.id)).body.ready_for_submit).toBe(false);
    const early = await submit(v.id);
    expect(early.status).toBe(409);
    expect(early.body.error).toEqual({ code: "invalid_state", message: expect.stringContaining("plate needs an answer") });
    expect(early.body.error.message).not.toContain("capture");

    expect((await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "plate", value: "AB-123" } })).status).toBe(200);
    expect((await view(v.id)).body).toMatchObject({ ready_for_submit: true, submitted: false, captures_count: 0 });

    const done = await submit(v.id);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({ status: "failed", captures_count: 0, submitted_at: expect.any(String) });
    expect(done.body).not.toHaveProperty("failure_reason"); // the end user's view carries none

    const tenantView = (await callJson(`/v1/verifications/${v.id}`, { key: t.key })).body;
    expect(tenantView).toMatchObject({ status: "failed", failure_reason: "no_evidence", submitted_at: done.body.submitted_at, answers: { plate: { value: "AB-123" } } });
    expect(tenantView).not.toHaveProperty("verdict");
    expect(tenantView).not.toHaveProperty("completed_at");
    expect((await view(v.id)).body).toMatchObject({ status: "failed", submitted: true, ready_for_submit: false });

    // The timeline: submitted, then failed with its reason; nothing asks the analysis for a verdict.
    const events = (await callJson(`/v1/verifications/${v.id}/events`, { key: t.key })).body.events as Array<{ event_id: string; event_name: string; payload?: unknown }>;
    const names = events.map((e) => e.event_name);
    expect(names).toEqual(["verification.created", "verification.answer.recorded", "verification.submitted", "verification.failed"]);
    expect(events.at(-1)!.payload).toEqual({ reason: "no_evidence" });

    // The webhook is verification.failed with the failed object (checked against the document's webhooks section).
    const hits = await waitFor(async () => {
      const got = await received(r.id);
      return got.some((h) => JSON.parse(h.body).type === "verification.failed") ? got : undefined;
    }, { what: "the verification.failed webhook" });
    const failed = JSON.parse(hits.find((h) => JSON.parse(h.body).type === "verification.failed")!.body);
    expect(failed.data.object).toMatchObject({ id: v.id, status: "failed", failure_reason: "no_evidence" });
    expect(failed.data.object).not.toHaveProperty("verdict");
    expect(await deliveryByEvent(db(), events.find((e) => e.event_name === "verification.submitted")!.event_id)).toBeUndefined();

    const mail = await waitFor(async () => {
      const rows = await db().select().from(outboundMessages).where(eq(outboundMessages.verificationId, v.id)).all();
      return rows.length > 0 ? rows : undefined;
    }, { what: "the failed email" });
    expect(mail).toHaveLength(1);
    expect(mail[0]!.subject).toBe(`Verification ${v.id} failed`);
    expect(mail[0]!.body).toContain("no verdict could be produced (no_evidence).");

    // Over: a repeated submit (a retry whose answer was lost) answers the same state and writes nothing.
    const again = await submit(v.id);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toEqual(done.body);
    expect((await persisted(v.id)).row).toMatchObject({ status: "failed", failureReason: "no_evidence", readyAt: null });
    const after = (await callJson(`/v1/verifications/${v.id}/events`, { key: t.key })).body.events as Array<{ event_name: string }>;
    expect(after.map((e) => e.event_name)).toEqual(names);
  });

  it("a step with a min still needs its captures: 409 and nothing written", async () => {
    const v = await createVerification(t.key, { steps: [{ key: "front", type: "image", description: "Front", min: 1, max: 1 }] });
    expect((await view(v.id)).body.ready_for_submit).toBe(false);
    const refused = await submit(v.id);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toEqual({ code: "invalid_state", message: expect.stringContaining("front needs at least 1 capture(s)") });
    expect((await persisted(v.id)).row).toMatchObject({ status: "pending", submittedAt: null, failureReason: null });
  });
});

describe("a key-reference capture and its upload's window", () => {
  it("past the window it is 409 upload_expired (the link is still live: a new upload is taken)", async () => {
    const v = await createVerification(t.key, { max_captures: 2 });
    const up = await upload(v.id);
    await setClock(v.id, Date.parse(up.expires_at) + CAPTURE_WINDOW_MS);
    try {
      const late = await captureKey(v.id, up);
      expect(late.status).toBe(409);
      expect(late.body.error).toEqual({ code: "upload_expired", message: expect.stringContaining("upload the image again") });
      expect((await persisted(v.id)).captures).toEqual([]);
      // The link itself is fine: the page reads it and the image goes again under a new key.
      expect(await view(v.id)).toMatchObject({ status: 200, body: { status: "pending", captures_count: 0 } });
      const fresh = await upload(v.id);
      const taken = await captureKey(v.id, fresh);
      expect(taken.status, JSON.stringify(taken.body)).toBe(201);
      expect(taken.body.captures_count).toBe(1);
    } finally {
      await setClock(v.id, null);
    }
  });

  it("a retry of a persisted image_key is the current Verification whenever it comes, after the window and after submit", async () => {
    const v = await createVerification(t.key, { steps: [{ key: "front", type: "image", description: "Front", min: 1, max: 2 }] });
    const bytes = uniqueJpeg();
    const up = await upload(v.id, bytes);
    const first = await captureKey(v.id, up, { step_key: "front" });
    expect(first.status).toBe(201);
    const submitted = await submit(v.id);
    expect(submitted.status).toBe(200);
    await setClock(v.id, Date.parse(up.expires_at) + CAPTURE_WINDOW_MS + 60_000);
    try {
      const retry = await captureKey(v.id, up, { step_key: "front" });
      expect(retry.status, JSON.stringify(retry.body)).toBe(201);
      expect(retry.body).toMatchObject({ id: v.id, captures_count: 1, submitted_at: submitted.body.submitted_at });
      expect(retry.body.captures.map((c: { id: string }) => c.id)).toEqual(first.body.captures.map((c: { id: string }) => c.id));
      // Without step_key too (a retry asks for nothing else).
      expect((await captureKey(v.id, up)).status).toBe(201);
      expect((await persisted(v.id)).captures).toHaveLength(1);
    } finally {
      await setClock(v.id, null);
    }
  });
});
