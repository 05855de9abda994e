import type { DomainEvent, QueueMessage } from "./messages";

export type AnalysisJob = Extract<QueueMessage, { type: "analyze_capture" | "settle_verification" | "analyze_case" }>;

/** The one place that puts work on the analysis queue. */
export async function enqueueAnalysisJob(env: Env, job: AnalysisJob): Promise<void> {
  await env.ANALYSIS_QUEUE.send(job);
}

/** Domain-event subscriber: every persisted capture gets its own analysis job. */
export async function enqueueCaptureAnalysis(event: DomainEvent, env: Env): Promise<void> {
  const captureId = event.payload?.capture_id;
  if (typeof captureId !== "string") return;
  await enqueueAnalysisJob(env, { type: "analyze_capture", v: 1, verification_id: event.verification_id, capture_id: captureId });
}

/** Domain-event subscriber: the evidence is complete, settle as soon as the analyses are in. */
export async function enqueueSettlement(event: DomainEvent, env: Env): Promise<void> {
  await enqueueAnalysisJob(env, { type: "settle_verification", v: 1, verification_id: event.verification_id });
}
