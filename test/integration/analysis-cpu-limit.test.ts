import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { handleAnalysisQueueUnderCpuLimit } from "../setup/analysis-worker-entry";
import { SIMULATED_CPU_LIMIT } from "../setup/simulated-cpu-limit";
import { callJson, createVerification, eventually, seedTenant } from "../helpers/api";
import { captureInline, pollVerification } from "../helpers/capture";
import { encodeJpeg, naturalScene } from "../helpers/synth";

/*
 * What happens when an analysis exceeds the analysis Worker's `limits.cpu_ms` (wrangler.analysis.toml).
 * Cloudflare ends the invocation: no line of ours runs after it, the messages of the batch it had not
 * acked are delivered again, and after `max_retries` they go to the dead-letter queue. workerd, the
 * local runtime, enforces no CPU limit (workerd issue #49: its limit enforcer is a null one, and
 * workerd.capnp of 1.20261102 has no CPU limit to configure), so these tests simulate that ending:
 * the analysis Worker the suite builds (test/setup/analysis-worker-entry.ts, test code only: no
 * deployment can reach it) throws the runtime's error out of the whole invocation for a capture
 * analysis of a verification whose metadata asks for it, past the handler's per-message catch
 * (test/setup/simulated-cpu-limit.ts). The retries, the dead letter and the verification's end are
 * the real local queues', Durable Object's and D1's.
 */

describe("an analysis that exceeds the CPU limit", () => {
  it("ends the invocation: what the batch acked before stays acked; the killed job and those after it are left for the queue to redeliver", async () => {
    const t = await seedTenant();
    const plain = await createVerification(t.key, { max_captures: 1 });
    const killed = await createVerification(t.key, { max_captures: 1, metadata: { [SIMULATED_CPU_LIMIT.key]: SIMULATED_CPU_LIMIT.value } });
    // A settle job for a verification still capturing: acked at once, nothing to do.
    const batch = createMessageBatch("vfy-analysis-local", [
      { id: "m1", timestamp: new Date(), attempts: 1, body: { type: "settle_verification", v: 1, verification_id: plain.id } },
      { id: "m2", timestamp: new Date(), attempts: 1, body: { type: "analyze_capture", v: 1, verification_id: killed.id, capture_id: "cap_x" } },
      { id: "m3", timestamp: new Date(), attempts: 1, body: { type: "settle_verification", v: 1, verification_id: plain.id } },
    ]);
    const ctx = createExecutionContext();
    const ended = await handleAnalysisQueueUnderCpuLimit(batch, env, ctx).then(
      () => null,
      (err: unknown) => err,
    );
    expect(ended).toMatchObject({ name: "CpuLimitExceeded", message: "Worker exceeded CPU time limit." });
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual(["m1"]);
    expect(result.retryMessages).toEqual([]);
  });

  it("is retried by the queue, then dead-lettered, and the verification ends failed: never stuck", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, { max_captures: 1, metadata: { [SIMULATED_CPU_LIMIT.key]: SIMULATED_CPU_LIMIT.value } });
    const after = await captureInline(v.id, encodeJpeg(naturalScene(96, 64, 11)));
    const captureId = after.captures[0].id as string;
    const failed = await pollVerification(t.key, v.id, (x) => x.status === "failed", 90_000);
    expect(failed.failure_reason).toBe("analysis_failed: evidence could not be analysed after retries");
    // Every delivery of the job was ended the same way: the first and max_retries (5) more.
    const ends = await eventually(async () => {
      const listed = await env.EVIDENCE.list({ prefix: `${SIMULATED_CPU_LIMIT.recordPrefix}${captureId}/` });
      return listed.objects.length >= 6 ? listed.objects.length : null;
    }, "six simulated CPU-limit ends");
    expect(ends).toBe(6);
    const events = await callJson(`/v1/verifications/${v.id}/events`, { key: t.key });
    expect(events.body.events.map((e: { event_name: string }) => e.event_name)).toContain("verification.failed");
  }, 120_000);
});
