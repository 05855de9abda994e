import { rateLimiterObject } from "../../durable-objects/rate-limiter-client";
import { laneQueue, type AnalysisJob, type Lane } from "../../events/analysis-jobs";
import type { QueueMessage } from "../../events/messages";
import { sendEach } from "../../events/send-all";
import { log } from "../../lib/log";

/**
 * Two lanes onto the analysis Worker, so one tenant's flood cannot queue in front of another
 * tenant's capture (ARCHITECTURE.md "Fairness"). Both are consumed by the analysis Worker, each with
 * its own consumer invocations (and, on Cloudflare, its own concurrency):
 *  - `fast` (ANALYSIS_QUEUE): every tenant's first FAST_LANE_SHARE.limit capture analyses of a
 *    minute, and the jobs of a tenant within that share;
 *  - `bulk` (ANALYSIS_BULK_QUEUE): a tenant's capture analyses beyond its share, and its other jobs
 *    while it is over it. Heavy tenants share this lane with each other only.
 * The lane only decides where a job waits: each job is sent once, to one lane, and acked by the
 * event that asked for it only once its own send succeeded (`sendAnalysisJobs`).
 */
export const FAST_LANE_SHARE = { limit: 10, windowMs: 60_000 } as const;

/** Several jobs, each to its lane, in as few sends as the queues allow; throws when any could not be sent. */
export async function enqueueAnalysisJobs(env: Env, jobs: AnalysisJob[]): Promise<void> {
  const { unsent, error } = await sendAnalysisJobs(env, jobs);
  if (unsent.size > 0) throw error ?? new Error(`${unsent.size} analysis job(s) could not be queued`);
}

/**
 * Sends each job to its lane and answers which could not be sent, so a caller acks exactly the
 * messages whose jobs went out (a retried message must not send its sent jobs again).
 */
export async function sendAnalysisJobs(env: Env, jobs: AnalysisJob[]): Promise<{ unsent: Set<AnalysisJob>; error?: unknown }> {
  const lanes = await assignLanes(env, jobs);
  const unsent = new Set<AnalysisJob>();
  let error: unknown;
  for (const lane of ["fast", "bulk"] as const) {
    const mine = jobs.filter((job) => lanes.get(job) === lane);
    if (mine.length === 0) continue;
    const result = await sendEach<QueueMessage>(laneQueue(env, lane), mine);
    for (const job of result.unsent as AnalysisJob[]) unsent.add(job);
    error ??= result.error;
  }
  return { unsent, ...(error !== undefined ? { error } : {}) };
}

/**
 * The lane of each job. Per tenant, its capture analyses are counted in the tenant's window
 * (`RateLimiterObject.take`, one call per tenant per batch): those within the share go fast, the
 * rest bulk, and the tenant's other jobs follow it (bulk once it is over). Without a count (the
 * counter unreachable) the batch alone decides: a tenant's capture analyses beyond the share in
 * this batch go bulk. A job without a tenant (sent before lanes existed) goes fast.
 */
export async function assignLanes(env: Env, jobs: AnalysisJob[]): Promise<Map<AnalysisJob, Lane>> {
  const lanes = new Map<AnalysisJob, Lane>();
  const byTenant = new Map<string, AnalysisJob[]>();
  for (const job of jobs) {
    if (!job.tenant_id) lanes.set(job, "fast");
    else byTenant.set(job.tenant_id, [...(byTenant.get(job.tenant_id) ?? []), job]);
  }
  await Promise.all(
    [...byTenant].map(async ([tenantId, mine]) => {
      const captures = mine.filter((j) => j.type === "analyze_capture");
      let counted: { within: number; count: number };
      try {
        counted = await rateLimiterObject(env, laneKey(tenantId)).take(captures.length, FAST_LANE_SHARE.limit, FAST_LANE_SHARE.windowMs);
      } catch (err) {
        log.warn({ msg: "analysis lane counter unavailable; this batch alone decides", tenant_id: tenantId, error: String(err) });
        counted = { within: Math.min(captures.length, FAST_LANE_SHARE.limit), count: captures.length };
      }
      captures.forEach((job, i) => lanes.set(job, i < counted.within ? "fast" : "bulk"));
      const over = counted.count > FAST_LANE_SHARE.limit;
      for (const job of mine) if (job.type !== "analyze_capture") lanes.set(job, over ? "bulk" : "fast");
    }),
  );
  return lanes;
}

/** The rate-limiter key counting a tenant's capture analyses (RATE_LIMITERS). */
export function laneKey(tenantId: string): string {
  return `analysis-lane:${tenantId}`;
}
