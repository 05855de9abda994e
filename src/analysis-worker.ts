import { handleAnalysisQueue } from "./queues/analysis.consumer";

/**
 * The analysis Worker (wrangler.analysis.toml): the consumer of the analysis queue, deployed as its
 * own Worker so the CPU-heavy decode and signals run in isolates of their own and never hold up an
 * isolate that serves capture links. It shares the queue handler (acks, retries) with the API
 * Worker, not its dispatch: each Worker bundles only the consumers it runs. It reaches the
 * verification's Durable Object (and the rate-limit counters) through bindings to the API Worker's
 * classes.
 */
export default {
  queue: handleAnalysisQueue,
} satisfies ExportedHandler<Env>;
