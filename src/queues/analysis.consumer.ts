import { runCaseAnalysis } from "../analysis/case-runner";
import { analyzeCapture, settleVerification } from "../analysis/pipeline";
import type { AnalysisJob as AnalysisMessage } from "../events/analysis-jobs";
import { queueHandler, type Dispatch } from ".";

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

/** The analysis Worker's dispatch: the analysis queue's jobs only. */
export const dispatchAnalysis: Dispatch = async (message, env, _ctx, attempts) => {
  if (message.type === "analyze_capture" || message.type === "settle_verification" || message.type === "analyze_case") return handleAnalysisMessage(message, env, attempts);
  throw new Error(`${message.type} is not an analysis job: the analysis Worker consumes only the analysis queue`);
};

/** The analysis Worker's consumer (src/analysis-worker.ts). */
export const handleAnalysisQueue = queueHandler(dispatchAnalysis);
