import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { captureAnalyses, events } from "../../src/db/schema";
import { FAST_LANE_SHARE } from "../../src/domain/fairness/analysis-lanes";
import { newId } from "../../src/lib/ids";
import { handleQueue } from "../../src/queues";
import { callJson, createVerification, db, seedTenant, type TestTenant } from "../helpers/api";
import { inlineCapture, pollVerification } from "../helpers/capture";
import { awayFromWindowEdge } from "../helpers/limits";

/*
 * Fairness (ARCHITECTURE.md "Fairness"): per tenant, the first FAST_LANE_SHARE.limit capture
 * analyses of a minute take the fast lane (ANALYSIS_QUEUE), the rest the bulk lane
 * (ANALYSIS_BULK_QUEUE), so one tenant's flood waits behind itself. The lane changes where a job
 * waits, never whether or how often it is sent.
 */

type Sent = { lane: "fast" | "bulk"; body: { type: string; verification_id: string; capture_id?: string } };

/** The two lanes as queues that record what is sent to them (or refuse it), in the events consumer's env. */
function lanes(options: { refuse?: "fast" | "bulk" } = {}) {
  const sent: Sent[] = [];
  const lane = (name: "fast" | "bulk") => ({
    async send() {
      throw new Error("one send per job: not expected");
    },
    async sendBatch(messages: Iterable<MessageSendRequest>) {
      if (options.refuse === name) throw new Error(`${name} lane unavailable (injected)`);
      for (const m of messages) sent.push({ lane: name, body: m.body as Sent["body"] });
    },
  });
  return { sent, env: { ...env, ANALYSIS_QUEUE: lane("fast") as unknown as Queue, ANALYSIS_BULK_QUEUE: lane("bulk") as unknown as Queue } };
}

function persisted(t: TestTenant, verificationId: string, captureId: string) {
  const now = Date.now();
  return {
    type: "domain_event",
    v: 1,
    event: { id: newId("event", now), name: "verification.capture.persisted", verification_id: verificationId, tenant_id: t.id, occurred_at: now, payload: { capture_id: captureId } },
    webhook: false,
  };
}

function ready(t: TestTenant, verificationId: string) {
  const now = Date.now();
  return { type: "domain_event", v: 1, event: { id: newId("event", now), name: "verification.ready", verification_id: verificationId, tenant_id: t.id, occurred_at: now, payload: null }, webhook: false };
}

async function consume(messages: Array<{ id: string; body: unknown }>, laneEnv: Env) {
  const batch = createMessageBatch("vfy-events-local", messages.map((m) => ({ ...m, timestamp: new Date(), attempts: 1 })));
  const ctx = createExecutionContext();
  await handleQueue(batch, laneEnv, ctx);
  return getQueueResult(batch, ctx);
}

describe("analysis lanes", () => {
  it("a tenant's capture analyses beyond its share in a minute go to the bulk lane, with its other jobs; another tenant's stay fast", async () => {
    await awayFromWindowEdge(FAST_LANE_SHARE.windowMs);
    const flooder = await seedTenant("Flooder");
    const quiet = await seedTenant("Quiet");
    const many = await createVerification(flooder.key, { max_captures: 20 });
    const one = await createVerification(quiet.key, { max_captures: 1 });
    const over = FAST_LANE_SHARE.limit + 3;
    const flood = Array.from({ length: over }, (_, i) => ({ id: crypto.randomUUID(), body: persisted(flooder, many.id, `cap_F${i}`) }));
    const mine = { id: crypto.randomUUID(), body: persisted(quiet, one.id, "cap_Q1") };
    const { sent, env: laneEnv } = lanes();
    const result = await consume([...flood, { id: crypto.randomUUID(), body: ready(flooder, many.id) }, mine, { id: crypto.randomUUID(), body: ready(quiet, one.id) }], laneEnv);
    expect(result.explicitAcks).toHaveLength(over + 3);
    expect(result.retryMessages).toEqual([]);

    const of = (verificationId: string) => sent.filter((s) => s.body.verification_id === verificationId);
    // Each job exactly once: the flood's captures in order, the first `limit` fast.
    expect(of(many.id).filter((s) => s.body.type === "analyze_capture").map((s) => s.body.capture_id)).toEqual(flood.map((_, i) => `cap_F${i}`));
    expect(of(many.id).filter((s) => s.body.type === "analyze_capture").map((s) => s.lane)).toEqual([
      ...Array(FAST_LANE_SHARE.limit).fill("fast"),
      ...Array(over - FAST_LANE_SHARE.limit).fill("bulk"),
    ]);
    expect(of(many.id).filter((s) => s.body.type === "settle_verification").map((s) => s.lane)).toEqual(["bulk"]);
    expect(of(one.id).map((s) => [s.body.type, s.lane])).toEqual([
      ["analyze_capture", "fast"],
      ["settle_verification", "fast"],
    ]);

    // Later in the same minute the flooder is still over its share: even one capture waits in bulk.
    const later = lanes();
    await consume([{ id: crypto.randomUUID(), body: persisted(flooder, many.id, "cap_F99") }], later.env);
    expect(later.sent.map((s) => s.lane)).toEqual(["bulk"]);
  });

  it("a lane refusing its send retries only the events whose jobs it held; the redelivery sends nothing twice", async () => {
    await awayFromWindowEdge(FAST_LANE_SHARE.windowMs);
    const flooder = await seedTenant("Flooder");
    const v = await createVerification(flooder.key, { max_captures: 20 });
    const over = FAST_LANE_SHARE.limit + 2;
    const flood = Array.from({ length: over }, (_, i) => ({ id: crypto.randomUUID(), body: persisted(flooder, v.id, `cap_R${i}`) }));
    const refusing = lanes({ refuse: "bulk" });
    const first = await consume(flood, refusing.env);
    const fastIds = flood.slice(0, FAST_LANE_SHARE.limit).map((m) => m.id);
    const bulkIds = flood.slice(FAST_LANE_SHARE.limit).map((m) => m.id);
    expect(first.explicitAcks.sort()).toEqual([...fastIds].sort());
    expect(first.retryMessages.map((r) => r.msgId).sort()).toEqual([...bulkIds].sort());
    expect(refusing.sent.map((s) => s.body.capture_id)).toEqual(flood.slice(0, FAST_LANE_SHARE.limit).map((_, i) => `cap_R${i}`));

    // The queue delivers the retried events again; the bulk lane is back.
    const recovered = lanes();
    const second = await consume(flood.filter((m) => bulkIds.includes(m.id)), recovered.env);
    expect(second.explicitAcks.sort()).toEqual([...bulkIds].sort());
    const all = [...refusing.sent, ...recovered.sent].map((s) => s.body.capture_id);
    expect(all.sort()).toEqual(flood.map((_, i) => `cap_R${i}`).sort());
  });

  it("end to end: a tenant over its share still gets every capture analysed once and every verdict", async () => {
    await awayFromWindowEdge(FAST_LANE_SHARE.windowMs);
    const flooder = await seedTenant("Flooder");
    const count = FAST_LANE_SHARE.limit + 4;
    const vs = await Promise.all(Array.from({ length: count }, () => createVerification(flooder.key, { max_captures: 1, signals_required: ["screen"] })));
    for (const v of vs) expect((await inlineCapture(v.id)).status).toBe(201);
    const quiet = await seedTenant("Quiet");
    const mine = await createVerification(quiet.key, { max_captures: 1, signals_required: ["screen"] });
    expect((await inlineCapture(mine.id)).status).toBe(201);
    expect((await pollVerification(quiet.key, mine.id, (x) => x.verdict !== undefined, 60_000)).status).toBe("completed");
    for (const v of vs) expect((await pollVerification(flooder.key, v.id, (x) => x.verdict !== undefined, 90_000)).status).toBe("completed");

    const ids = vs.map((v) => v.id);
    const analyses = await db().select({ captureId: captureAnalyses.captureId }).from(captureAnalyses).where(inArray(captureAnalyses.verificationId, ids));
    expect(analyses).toHaveLength(count);
    for (const id of ids) {
      const names = (await db().select({ name: events.name }).from(events).where(eq(events.verificationId, id))).map((e) => e.name);
      expect(names.filter((n) => n === "verification.completed")).toHaveLength(1);
    }
    const listed = await callJson(`/v1/verifications?limit=100`, { key: flooder.key });
    expect(listed.body.items.filter((x: { verdict?: unknown }) => x.verdict !== undefined)).toHaveLength(count);
  }, 180_000);
});
