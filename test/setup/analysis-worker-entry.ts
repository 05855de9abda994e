import { queueHandler } from "../../src/queues";
import { dispatchAnalysis } from "../../src/queues/analysis.consumer";
import { simulateCpuLimit } from "./simulated-cpu-limit";

/*
 * The analysis Worker as the Workers suite runs it (test/setup/analysis-worker.ts bundles this entry
 * with wrangler.analysis.toml instead of src/analysis-worker.ts): the production dispatch, behind
 * the simulated CPU limit that workerd cannot enforce (./simulated-cpu-limit.ts). Nothing else differs.
 */
export const handleAnalysisQueueUnderCpuLimit = queueHandler(async (message, env, ctx, attempts, jobs) => {
  if (message.type === "analyze_capture") await simulateCpuLimit(env, message);
  return dispatchAnalysis(message, env, ctx, attempts, jobs);
});

export default {
  queue: handleAnalysisQueueUnderCpuLimit,
} satisfies ExportedHandler<Env>;
