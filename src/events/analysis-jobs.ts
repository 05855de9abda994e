import type { DomainEvent, QueueMessage } from "./messages";

export type AnalysisJob = Extract<QueueMessage, { type: "analyze_capture" | "settle_verification" | "analyze_case" }>;

/** The two analysis queues (domain/fairness/analysis-lanes.ts decides which one a job waits in). */
export type Lane = "fast" | "bulk";

export function laneQueue(env: Env, lane: Lane): Queue<QueueMessage> {
  return lane === "fast" ? env.ANALYSIS_QUEUE : env.ANALYSIS_BULK_QUEUE;
}

/** One job to the fast lane (finalize's case analysis: an operator waits for it, and it decodes nothing). */
export async function enqueueAnalysisJob(env: Env, job: AnalysisJob): Promise<void> {
  await env.ANALYSIS_QUEUE.send(job);
}

/** Every persisted capture gets its own analysis job (null: the event names no capture). */
export function captureAnalysisJob(event: DomainEvent): AnalysisJob | null {
  const captureId = event.payload?.capture_id;
  return typeof captureId === "string"
    ? { type: "analyze_capture", v: 1, verification_id: event.verification_id, capture_id: captureId, tenant_id: event.tenant_id }
    : null;
}

/** The evidence is complete: settle as soon as the analyses are in. */
export function settlementJob(event: DomainEvent): AnalysisJob {
  return { type: "settle_verification", v: 1, verification_id: event.verification_id, tenant_id: event.tenant_id };
}
