import { settings } from "../env";
import { QueueMessageSchema, type QueueMessage } from "../events/messages";
import { uniform } from "../lib/random";
import { recordDeadLetter } from "./dead-letter.consumer";
import { handleDomainEvent, markCreatedDispatched } from "./events.consumer";
import { eachLimited } from "../lib/concurrency";
import type { DomainEvent } from "../events/messages";
import { enqueueAnalysisJobs, type AnalysisJob } from "../events/analysis-jobs";
import { handleMaintenanceJob } from "./retention.consumer";
import { deliverWebhook } from "./webhooks.consumer";
import { log } from "../lib/log";

/** Verifications whose domain events one batch handles at once. */
const EVENT_CONCURRENCY = 20;

/**
 * Ends the whole invocation, as the runtime does when a Worker exceeds its CPU limit: the handler
 * acks and retries nothing after it, and the queue redelivers every message not acked.
 */
export class InvocationEnded extends Error {}

/** A consumer may ask for its message to be retried after a delay instead of acked. */
export type Outcome = { kind: "done" } | { kind: "retry"; delaySeconds: number };

/**
 * Handles one parsed message for a Worker; a throw retries it with backoff. Analysis jobs it puts in
 * `analysisJobs` are sent for the whole batch at once, and the message is acked only after that send.
 */
export type Dispatch = (message: QueueMessage, env: Env, ctx: ExecutionContext, attempts: number, analysisJobs: AnalysisJob[]) => Promise<Outcome | void>;

/**
 * A Worker's queue entry point. Messages are dispatched by their `type` (`dispatch` knows the types
 * the Worker consumes); each message is acked or retried on its own (a throw would retry the whole
 * batch). Dead letters are recorded whatever their type.
 */
export function queueHandler(dispatch: Dispatch) {
  return (batch: MessageBatch<unknown>, env: Env, ctx: ExecutionContext) => handleBatch(batch, env, ctx, dispatch);
}

/**
 * The API Worker's consumer: domain events, webhook deliveries, maintenance jobs and dead letters.
 * Analysis jobs are the analysis Worker's (src/analysis-worker.ts), so the decoders are not in this
 * Worker's bundle at all.
 */
export const handleQueue = queueHandler(dispatchApi);

async function handleBatch(batch: MessageBatch<unknown>, env: Env, ctx: ExecutionContext, dispatch: Dispatch): Promise<void> {
  try {
    settings(env);
  } catch (err) {
    // Misconfigured: keep every message for when the configuration is fixed.
    log.error({ msg: `configuration invalid: ${err instanceof Error ? err.message : String(err)}`, queue: batch.queue });
    batch.retryAll({ delaySeconds: 60 });
    return;
  }
  const deadLetter = batch.queue.includes("dead-letter");
  const consumed: DomainEvent[] = [];
  const done = (message: Message<unknown>, parsed: QueueMessage) => {
    message.ack();
    if (!deadLetter && parsed.type === "domain_event") consumed.push(parsed.event);
  };
  // Messages whose analysis jobs wait for the batch's one send; acked after it.
  const held: Array<{ message: Message<unknown>; parsed: QueueMessage; jobs: AnalysisJob[] }> = [];
  const handle = async (message: Message<unknown>, parsed: QueueMessage) => {
    try {
      const jobs: AnalysisJob[] = [];
      const outcome = deadLetter ? await recordDeadLetter(parsed, env, batch.queue, message.id) : await dispatch(parsed, env, ctx, message.attempts, jobs);
      if (outcome?.kind === "retry") message.retry({ delaySeconds: outcome.delaySeconds });
      else if (jobs.length > 0) held.push({ message, parsed, jobs });
      else done(message, parsed);
    } catch (err) {
      if (err instanceof InvocationEnded) throw err;
      log.error({ msg: "queue message failed", queue: batch.queue, id: message.id, attempts: message.attempts, error: String(err) });
      message.retry({ delaySeconds: backoffSeconds(message.attempts) });
    }
  };
  // Domain events of different verifications run concurrently, those of one verification in order;
  // every other message runs in order, as before.
  const groups = new Map<string, Array<[Message<unknown>, QueueMessage]>>();
  for (const message of batch.messages) {
    const parsed = QueueMessageSchema.safeParse(message.body);
    if (!parsed.success) {
      log.error({ msg: "dropping malformed queue message", queue: batch.queue, id: message.id });
      message.ack();
      continue;
    }
    const key = !deadLetter && parsed.data.type === "domain_event" ? parsed.data.event.verification_id : "(in order)";
    const group = groups.get(key) ?? [];
    group.push([message, parsed.data]);
    groups.set(key, group);
  }
  const failures = await eachLimited([...groups.values()], EVENT_CONCURRENCY, async (group) => {
    for (const [message, parsed] of group) await handle(message, parsed);
  });
  // The invocation ends here: nothing after it is acked, sent or retried (concurrent groups finished first).
  const ended = failures.find((f) => f.error instanceof InvocationEnded);
  if (ended) throw ended.error;
  if (held.length > 0) {
    try {
      await enqueueAnalysisJobs(env, held.flatMap((h) => h.jobs));
      for (const { message, parsed } of held) done(message, parsed);
    } catch (err) {
      // Nothing acked: the messages come again (their other subscribers are idempotent, and so is a job sent twice).
      log.error({ msg: "analysis jobs could not be queued", queue: batch.queue, count: held.length, error: String(err) });
      for (const { message } of held) message.retry({ delaySeconds: backoffSeconds(message.attempts) });
    }
  }
  await markCreatedDispatched(env, consumed);
}

async function dispatchApi(message: QueueMessage, env: Env, _ctx: ExecutionContext, attempts: number, analysisJobs: AnalysisJob[]): Promise<Outcome | void> {
  switch (message.type) {
    case "domain_event":
      return handleDomainEvent(message.event, env, message.webhook === undefined ? {} : { webhook: message.webhook }, analysisJobs);
    case "deliver_webhook":
      return deliverWebhook(message.delivery_id, env, attempts);
    case "analyze_capture":
    case "settle_verification":
    case "analyze_case":
      throw new Error(`${message.type} belongs to the analysis Worker: this Worker must not consume the analysis queue`);
    case "retention_sweep":
    case "redact_verifications":
      return handleMaintenanceJob(message, env);
    default: {
      const unhandled: never = message;
      throw new Error(`no consumer for ${JSON.stringify(unhandled)}`);
    }
  }
}

/** Exponential backoff with jitter, capped at the queue's 12 h maximum delay. */
export function backoffSeconds(attempts: number, baseSeconds = 5): number {
  const exp = Math.min(baseSeconds * 2 ** Math.max(0, attempts - 1), 43_200);
  return Math.round(exp / 2 + (uniform() * exp) / 2);
}
