import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { analysesOf } from "../../src/db/analyses";
import { captures } from "../../src/db/schema";
import { loadRecord } from "../../src/db/verifications";
import { handleQueue } from "../../src/queues";
import { handleAnalysisQueue } from "../../src/queues/analysis.consumer";
import { callJson, createVerification, db, seedTenant } from "../helpers/api";
import { captureInline, hasVerdict, pollVerification } from "../helpers/capture";
import { encodeJpeg, naturalScene } from "../helpers/synth";

async function deliver(queue: string, body: unknown, id = crypto.randomUUID()) {
  const batch = createMessageBatch(queue, [{ id, timestamp: new Date(), attempts: 1, body }]);
  const ctx = createExecutionContext();
  // Each queue goes to the Worker that consumes it: the analysis queue to the analysis Worker.
  await (queue.includes("analysis") ? handleAnalysisQueue : handleQueue)(batch, env, ctx);
  return getQueueResult(batch, ctx);
}

describe("analysis failures and duplicates", () => {
  it("evidence missing from storage is retried with backoff, not silently skipped", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, { max_captures: 2 });
    await captureInline(v.id, encodeJpeg(naturalScene(64, 48, 1)));
    const record = (await loadRecord(db(), v.id))!;
    const capture = record.captures[0]!;
    // A capture row whose bytes are gone (analysis not yet stored for it: use a fresh id).
    const ghost = { ...capture, id: `${capture.id}X`, imageKey: `${capture.imageKey}-missing` };
    await db().insert(captures).values({ ...ghost, seq: 99 });
    const result = await deliver("vfy-analysis-local", { type: "analyze_capture", v: 1, verification_id: v.id, capture_id: ghost.id });
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages).toHaveLength(1);
    // (The test batch does not record delays; the backoff itself is backoffSeconds in src/queues.)
  });

  it("an analysis job that exhausted its retries (dead letter) fails the verification", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, { max_captures: 2 });
    const after = await captureInline(v.id, encodeJpeg(naturalScene(64, 48, 2)));
    const captureId = after.captures[0].id;
    const result = await deliver("vfy-dead-letter-local", { type: "analyze_capture", v: 1, verification_id: v.id, capture_id: captureId });
    expect(result.explicitAcks).toHaveLength(1);
    const failed = await pollVerification(t.key, v.id, (x) => x.status === "failed");
    expect(failed.failure_reason).toMatch(/analysis_failed/);
    const events = await callJson(`/v1/verifications/${v.id}/events`, { key: t.key });
    expect(events.body.events.map((e: any) => e.event_name)).toContain("verification.failed");
    // A late duplicate of the dead letter changes nothing.
    const again = await deliver("vfy-dead-letter-local", { type: "analyze_capture", v: 1, verification_id: v.id, capture_id: captureId });
    expect(again.explicitAcks).toHaveLength(1);
  });

  it("duplicate deliveries of analyze and settle write one analysis per capture and one verdict", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, { max_captures: 1, signals_required: ["screen", "reverse"] });
    const after = await captureInline(v.id, encodeJpeg(naturalScene(96, 64, 3)));
    const captureId = after.captures[0].id;
    const first = await pollVerification(t.key, v.id, hasVerdict);
    for (let i = 0; i < 3; i += 1) {
      const a = await deliver("vfy-analysis-local", { type: "analyze_capture", v: 1, verification_id: v.id, capture_id: captureId });
      const s = await deliver("vfy-analysis-local", { type: "settle_verification", v: 1, verification_id: v.id });
      expect(a.explicitAcks).toHaveLength(1);
      expect(s.explicitAcks).toHaveLength(1);
    }
    expect(await analysesOf(db(), v.id)).toHaveLength(1);
    const now = await callJson(`/v1/verifications/${v.id}`, { key: t.key });
    expect(now.body.verdict).toEqual(first.verdict);
    const events = await callJson(`/v1/verifications/${v.id}/events`, { key: t.key });
    expect(events.body.events.filter((e: any) => e.event_name === "verification.completed")).toHaveLength(1);
  });

  it("each Worker consumes only its own jobs: an analysis job reaching the API Worker is retried, never run there", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, { max_captures: 1 });
    const batch = createMessageBatch("vfy-events-local", [{ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body: { type: "settle_verification", v: 1, verification_id: v.id } }]);
    const ctx = createExecutionContext();
    await handleQueue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages).toHaveLength(1);
    const wrong = createMessageBatch("vfy-analysis-local", [{ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body: { type: "deliver_webhook", v: 1, delivery_id: "whd_x" } }]);
    const wrongCtx = createExecutionContext();
    await handleAnalysisQueue(wrong, env, wrongCtx);
    expect((await getQueueResult(wrong, wrongCtx)).retryMessages).toHaveLength(1);
  });
});
