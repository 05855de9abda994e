import { runCaseAnalysis } from "../analysis/case-runner";
import { analyzeCapture, failVerification, settleVerification } from "../analysis/pipeline";
import { saveFailedAnalysis } from "../db/analyses";
import { createDb } from "../db/client";
import { enqueueAnalysisJob, type AnalysisJob as AnalysisMessage } from "../events/analysis-jobs";
import type { DomainEvent } from "../events/messages";

/** From this delivery on, a provider outage degrades a check instead of retrying (max_retries is 5). */
const DEGRADE_FROM_ATTEMPT = 4;

export async function handleAnalysisMessage(message: AnalysisMessage, env: Env, attempts: number): Promise<void> {
  const options = { degradeProviders: attempts >= DEGRADE_FROM_ATTEMPT };
  if (message.type === "analyze_capture") return analyzeCapture(env, message.verification_id, message.capture_id, options);
  if (message.type === "analyze_case") {
    await runCaseAnalysis(env, message.verification_id);
    return;
  }
  return settleVerification(env, message.verification_id, options);
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

/**
 * Dead letter: capture analysis that could not run after its retries fails the verification. A case
 * analysis that never ran leaves the verdict alone (it is only recorded in queue_failures).
 */
export async function analysisDeadLettered(message: AnalysisMessage, env: Env): Promise<void> {
  if (message.type === "analyze_case") return;
  if (message.type === "analyze_capture") {
    await saveFailedAnalysis(createDb(env.DB), message.capture_id, message.verification_id, "evidence could not be analysed after retries", Date.now());
  }
  await failVerification(env, message.verification_id, "analysis_failed: evidence could not be analysed after retries");
}
