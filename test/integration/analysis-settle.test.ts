import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { analysesOf, saveAnalysis } from "../../src/db/analyses";
import { captures, verifications } from "../../src/db/schema";
import { loadRecord, type CaptureRow } from "../../src/db/verifications";
import { handleAnalysisQueue } from "../../src/queues/analysis.consumer";
import { createVerification, db, eventually, seedTenant } from "../helpers/api";
import { captureInline } from "../helpers/capture";
import { encodeJpeg, naturalScene } from "../helpers/synth";

/*
 * A capture's analysis reads the record and its own analysis in one round trip, and writes its
 * result and reads the settling columns in another. These drive the analysis consumer directly on
 * capture rows that no event announced (so nothing analyses them in the background).
 */

async function analyze(verificationId: string, captureId: string) {
  const batch = createMessageBatch("vfy-analysis-local", [{ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body: { type: "analyze_capture", v: 1, verification_id: verificationId, capture_id: captureId } }]);
  const ctx = createExecutionContext();
  await handleAnalysisQueue(batch, env, ctx);
  return getQueueResult(batch, ctx);
}

/** A further capture row of a copy of `of`'s bytes, written straight to D1 (no event, no analysis job). */
async function unannounced(of: CaptureRow, suffix: string): Promise<CaptureRow> {
  const row = { ...of, id: `${of.id}${suffix}`, seq: 90, imageKey: `${of.imageKey}-${suffix}` };
  const bytes = await (await env.EVIDENCE.get(of.imageKey))!.arrayBuffer();
  await env.EVIDENCE.put(row.imageKey, bytes, { httpMetadata: { contentType: of.contentType } });
  await db().insert(captures).values(row);
  return row;
}

async function statusOf(id: string) {
  return (await db().select({ status: verifications.status, readyAt: verifications.readyAt }).from(verifications).where(eq(verifications.id, id)).get())!;
}

/** A verification whose evidence is complete (its two captures analysed in the background) plus one capture nobody analysed. */
async function readyButOneUnanalysed(seed: number) {
  const t = await seedTenant();
  const v = await createVerification(t.key, { max_captures: 2, signals_required: ["screen"] });
  await captureInline(v.id, encodeJpeg(naturalScene(96, 64, seed)));
  const [a] = (await loadRecord(db(), v.id))!.captures;
  const ghost = await unannounced(a!, "G");
  await captureInline(v.id, encodeJpeg(naturalScene(96, 64, seed + 1)));
  // The two announced captures are analysed; settling (after each, and on `ready`) waits for the third.
  await eventually(async () => (await analysesOf(db(), v.id)).length === 2, "the announced captures' analyses");
  expect((await statusOf(v.id)).readyAt).not.toBeNull();
  return { v, ghost };
}

describe("analysis: one round trip to start, one to store and decide settling", () => {
  it("the last capture's analysis settles the verification whose evidence became complete before it", async () => {
    const { v, ghost } = await readyButOneUnanalysed(41);
    expect((await statusOf(v.id)).status).not.toBe("completed");
    const result = await analyze(v.id, ghost.id);
    expect(result.explicitAcks).toHaveLength(1);
    // Settled by this delivery itself: the verdict is written when it returns.
    expect((await statusOf(v.id)).status).toBe("completed");
    expect((await analysesOf(db(), v.id)).map((r) => r.captureId)).toContain(ghost.id);
  });

  it("a redelivery that finds the analysis already stored still settles (the first try stored it, then failed to settle)", async () => {
    const { v, ghost } = await readyButOneUnanalysed(51);
    const [stored] = await analysesOf(db(), v.id);
    // The first try's write, without its settling.
    await saveAnalysis(db(), { ...stored!, captureId: ghost.id, analyzedAt: 1234 });
    expect((await statusOf(v.id)).status).not.toBe("completed");
    const result = await analyze(v.id, ghost.id);
    expect(result.explicitAcks).toHaveLength(1);
    expect((await statusOf(v.id)).status).toBe("completed");
    // Nothing analysed twice: the stored analysis is the first try's.
    expect((await analysesOf(db(), v.id)).find((r) => r.captureId === ghost.id)!.analyzedAt).toBe(1234);
  });

  it("duplicate deliveries at the same time store one analysis, the first write; the evidence not complete, nothing settles", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, { max_captures: 3, signals_required: ["screen", "reverse"] });
    await captureInline(v.id, encodeJpeg(naturalScene(96, 64, 61)));
    const [a] = (await loadRecord(db(), v.id))!.captures;
    const ghost = await unannounced(a!, "D");
    const results = await Promise.all([analyze(v.id, ghost.id), analyze(v.id, ghost.id), analyze(v.id, ghost.id)]);
    for (const r of results) expect(r.explicitAcks).toHaveLength(1);
    const rows = (await analysesOf(db(), v.id)).filter((r) => r.captureId === ghost.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.status).toBe("completed");
    const first = rows[0]!.analyzedAt;
    // A later copy finds it and writes nothing.
    expect((await analyze(v.id, ghost.id)).explicitAcks).toHaveLength(1);
    expect((await analysesOf(db(), v.id)).filter((r) => r.captureId === ghost.id).map((r) => r.analyzedAt)).toEqual([first]);
    expect(await statusOf(v.id)).toEqual({ status: "partially_captured", readyAt: null });
  });
});
