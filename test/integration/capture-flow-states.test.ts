import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { analysesOf } from "../../src/db/analyses";
import { captures, verifications } from "../../src/db/schema";
import { loadRecord } from "../../src/db/verifications";
import { handleAnalysisQueue } from "../../src/queues/analysis.consumer";
import { callJson, createVerification, db, eventually, seedTenant } from "../helpers/api";
import { captureInline, hasVerdict, inlineCapture, pollVerification } from "../helpers/capture";
import { persisted } from "../helpers/snapshot";
import { encodeJpeg, naturalScene } from "../helpers/synth";

/*
 * The capture flow's edges as the spec and CONTRACT "Decisions of the third release" put them: a
 * used quota is step_full also after the verdict; expires_at is the end of every capture-flow write
 * whatever the evidence state (but evidence complete before it still gets its verdict); abandoned
 * goes back to partially_captured before it completes; progress reports after the end are taken.
 */

const progressBody = (step = "success") => ({ schema_version: 1, kind: "step_reached", step, elapsed_ms: 1200, step_index: 2 });

async function row(id: string) {
  return (await db().select().from(verifications).where(eq(verifications.id, id)).get())!;
}

describe("a used quota is step_full, also once completed", () => {
  it("captures and upload URLs into a verification whose verdict filled max_captures answer 409 step_full", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, { max_captures: 1, signals_required: ["screen"] });
    await captureInline(v.id, encodeJpeg(naturalScene(96, 64, 7101)));
    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.status).toBe("completed");
    for (const res of [
      await inlineCapture(v.id),
      await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/jpeg" } }),
      await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/png", kind: "forensic_buffer" } }),
    ]) {
      expect(res.status).toBe(409);
      expect(res.body.error).toEqual({ code: "step_full", message: expect.any(String) });
    }
  });
});

describe("progress on a finished verification", () => {
  it("is accepted (204) and overwrites the snapshot; the status stays", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, { max_captures: 1, signals_required: ["screen"] });
    await captureInline(v.id, encodeJpeg(naturalScene(96, 64, 7201)));
    await pollVerification(t.key, v.id, hasVerdict);
    const first = await callJson(`/v1/verifications/${v.id}/progress`, { body: progressBody("success") });
    expect(first.status).toBe(204);
    expect((await row(v.id)).progress).toMatchObject({ step: "success", elapsed_ms: 1200 });
    const again = await callJson(`/v1/verifications/${v.id}/progress`, { body: { ...progressBody("landing"), kind: "abandoned", elapsed_ms: 99 } });
    expect(again.status).toBe(204);
    const after = await row(v.id);
    expect(after.progress).toMatchObject({ kind: "abandoned", step: "landing", elapsed_ms: 99 });
    expect(after.status).toBe("completed");
  });
});

describe("expires_at ends the capture flow whatever the evidence state", () => {
  it("evidence complete before expires_at: not expired, every write 410, and it completes when its analysis lands", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, { max_captures: 2, signals_required: ["screen"], expires_in_seconds: 3 });
    await captureInline(v.id, encodeJpeg(naturalScene(96, 64, 7301)));
    // A capture row nothing announced (so nothing analyses it): settling waits for it.
    const [first] = (await loadRecord(db(), v.id))!.captures;
    const ghost = { ...first!, id: `${first!.id}G`, seq: 90, imageKey: `${first!.imageKey}-G` };
    await env.EVIDENCE.put(ghost.imageKey, await (await env.EVIDENCE.get(first!.imageKey))!.arrayBuffer(), { httpMetadata: { contentType: first!.contentType } });
    await db().insert(captures).values(ghost);
    await captureInline(v.id, encodeJpeg(naturalScene(96, 64, 7302)));
    await eventually(async () => (await analysesOf(db(), v.id)).length === 2, "the announced captures' analyses");
    expect((await row(v.id)).readyAt).not.toBeNull();

    const expiresAt = Date.parse(v.expires_at);
    await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now()) + 300));
    // The expiry alarm left it alone: the evidence was complete.
    expect((await callJson(`/v1/verifications/${v.id}`, { key: t.key })).body.status).toBe("partially_captured");
    for (const res of [
      await inlineCapture(v.id),
      await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/jpeg" } }),
      await callJson(`/v1/verifications/${v.id}/progress`, { body: progressBody() }),
    ]) {
      expect(res.status).toBe(410);
      expect(res.body.error).toEqual({ code: "expired", message: expect.any(String) });
    }

    const batch = createMessageBatch("vfy-analysis-local", [{ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body: { type: "analyze_capture", v: 1, verification_id: v.id, capture_id: ghost.id } }]);
    const ctx = createExecutionContext();
    await handleAnalysisQueue(batch, env, ctx);
    await expect(getQueueResult(batch, ctx)).resolves.toMatchObject({ explicitAcks: [expect.any(String)] });
    const done = (await callJson(`/v1/verifications/${v.id}`, { key: t.key })).body;
    expect(done.status).toBe("completed");
    expect(done.verdict.label).toBeDefined();
    expect((await persisted(v.id)).events.map((e) => e.name)).not.toContain("verification.expired");
  });
});

describe("a dead link answers 410 whatever its body", () => {
  const writes = ["captures", "captures/upload-url", "answers", "progress"];
  const badBodies: Array<{ what: string; rawBody: string; contentType: string }> = [
    { what: "an unknown field", rawBody: JSON.stringify({ foo: 1 }), contentType: "application/json" },
    { what: "malformed JSON", rawBody: "{", contentType: "application/json" },
    { what: "not JSON", rawBody: "hello", contentType: "text/plain" },
    { what: "over the body limit", rawBody: JSON.stringify({ value: "x".repeat(10 * 1024 * 1024) }), contentType: "application/json" },
  ];
  const send = (id: string, write: string, bad: (typeof badBodies)[number]) =>
    callJson(`/v1/verifications/${id}/${write}`, { method: "POST", rawBody: bad.rawBody, headers: { "Content-Type": bad.contentType } });

  it("expired: 410 before the body is read; live or unknown: the body's own 4xx", async () => {
    const t = await seedTenant();
    const live = await createVerification(t.key, { max_captures: 1 });
    const lapsed = await createVerification(t.key, { max_captures: 1, expires_in_seconds: 1 });
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(lapsed.expires_at) - Date.now()) + 50));
    for (const write of writes) {
      for (const bad of badBodies) {
        const dead = await send(lapsed.id, write, bad);
        expect(dead.status, `${write}, ${bad.what}`).toBe(410);
        expect(dead.body.error).toEqual({ code: "expired", message: expect.any(String) });
        expect([400, 413, 415], `${write}, ${bad.what}`).toContain((await send(live.id, write, bad)).status);
        // An unknown id keeps the body's own answer: the override is for links known dead.
        expect([400, 413, 415], `${write}, ${bad.what}`).toContain((await send("vfy_01M82BB9AB26PZRT0D1PRV3Y8W", write, bad)).status);
      }
    }
  });
});

describe("abandoned comes back before it completes", () => {
  it("an answer that completes the evidence moves abandoned → partially_captured, then the verdict completes it", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, {
      steps: [
        { key: "photo", type: "image", description: "", min: 1, max: 1 },
        { key: "plate", type: "text", required: true, validation: { max_length: 10, format: "alphanumeric_id" } },
      ],
      signals_required: ["screen"],
    });
    await captureInline(v.id, encodeJpeg(naturalScene(96, 64, 7401)));
    expect((await callJson(`/v1/verifications/${v.id}/progress`, { body: { ...progressBody("capturing"), kind: "abandoned" } })).status).toBe(204);
    expect((await row(v.id)).status).toBe("abandoned");
    const answered = await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "plate", value: "AB123" } });
    expect(answered.status).toBe(200);
    expect(answered.body.status).toBe("partially_captured");
    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.status).toBe("completed");
  });

  it("a submit moves abandoned → partially_captured; an answer with no capture yet → pending", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, {
      steps: [
        { key: "photos", type: "image", description: "", min: 1, max: 3 },
        { key: "note", type: "text", required: false, validation: { max_length: 20, format: "free_text" } },
      ],
      signals_required: ["screen"],
    });
    expect((await callJson(`/v1/verifications/${v.id}/progress`, { body: { ...progressBody("landing"), kind: "abandoned" } })).status).toBe(204);
    const note = await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "note", value: "back again" } });
    expect(note.body.status).toBe("pending");
    await captureInline(v.id, encodeJpeg(naturalScene(96, 64, 7501)));
    expect((await callJson(`/v1/verifications/${v.id}/progress`, { body: { ...progressBody("capturing"), kind: "abandoned" } })).status).toBe(204);
    expect((await row(v.id)).status).toBe("abandoned");
    const submitted = await callJson(`/v1/verifications/${v.id}/submit`, { method: "POST" });
    expect(submitted.status).toBe(200);
    expect(submitted.body.status).toBe("partially_captured");
    expect((await pollVerification(t.key, v.id, hasVerdict)).status).toBe("completed");
  });
});
