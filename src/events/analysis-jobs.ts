import type { DomainEvent, QueueMessage } from "./messages";
import { sendAll } from "./send-all";

export type AnalysisJob = Extract<QueueMessage, { type: "analyze_capture" | "settle_verification" | "analyze_case" }>;

/** The one place that puts work on the analysis queue. */
export async function enqueueAnalysisJob(env: Env, job: AnalysisJob): Promise<void> {
  await env.ANALYSIS_QUEUE.send(job);
}

/** Several jobs in as few sends as the queue allows. */
export async function enqueueAnalysisJobs(env: Env, jobs: AnalysisJob[]): Promise<void> {
  await sendAll<QueueMessage>(env.ANALYSIS_QUEUE, jobs);
}

/** Every persisted capture gets its own analysis job (null: the event names no capture). */
export function captureAnalysisJob(event: DomainEvent): AnalysisJob | null {
  const captureId = event.payload?.capture_id;
  return typeof captureId === "string" ? { type: "analyze_capture", v: 1, verification_id: event.verification_id, capture_id: captureId } : null;
}

/** The evidence is complete: settle as soon as the analyses are in. */
export function settlementJob(event: DomainEvent): AnalysisJob {
  return { type: "settle_verification", v: 1, verification_id: event.verification_id };
}
