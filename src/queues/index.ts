import { apiSettings, settings } from "../env";
import { QueueMessageSchema, type QueueMessage } from "../events/messages";
import { uniform } from "../lib/random";
import { recordDeadLetter } from "./dead-letter.consumer";
import { handleDomainEvent, markCreatedDispatched } from "./events.consumer";
import { eachLimited } from "../lib/concurrency";
import type { DomainEvent } from "../events/messages";
import { sendAnalysisJobs } from "../domain/fairness/analysis-lanes";
import type { AnalysisJob } from "../events/analysis-jobs";
import { handleMaintenanceJob } from "./retention.consumer";
import { deliverWebhook } from "./webhooks.consumer";
import { log } from "../lib/log";
import { createDb } from "../db/client";
import { queueFailures } from "../db/schema";

/** Verifications (and webhook deliveries) one batch handles at once. */
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
 * batch). Dead letters are recorded whatever their type. `checkConfig` is the Worker's configuration
 * check (the API Worker's includes the certificate signing key).
 */
export function queueHandler(dispatch: Dispatch, checkConfig: (env: Env) => unknown = settings) {
  return (batch: MessageBatch<unknown>, env: Env, ctx: ExecutionContext) => handleBatch(batch, env, ctx, dispatch, checkConfig);
}

/**
 * The API Worker's consumer: domain events, webhook deliveries, maintenance jobs and dead letters.
 * Analysis jobs are the analysis Worker's (src/analysis-worker.ts), so the decoders are not in this
 * Worker's bundle at all.
 */
export const handleQueue = queueHandler(dispatchApi, apiSettings);

async function handleBatch(batch: MessageBatch<unknown>, env: Env, ctx: ExecutionContext, dispatch: Dispatch, checkConfig: (env: Env) => unknown): Promise<void> {
  try {
    checkConfig(env);
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
  // webhook attempts each on their own (a receiver taking its 10 s must not hold up another
  // tenant's: API probe of 2026-12-04); every other message runs in order.
  const groups = new Map<string, Array<[Message<unknown>, QueueMessage]>>();
  const malformed: Message<unknown>[] = [];
  for (const message of batch.messages) {
    const parsed = QueueMessageSchema.safeParse(message.body);
    if (!parsed.success) {
      malformed.push(message);
      continue;
    }
    const key = deadLetter ? "(in order)" : parsed.data.type === "domain_event" ? parsed.data.event.verification_id : parsed.data.type === "deliver_webhook" ? `webhook ${parsed.data.delivery_id}` : "(in order)";
    const group = groups.get(key) ?? [];
    group.push([message, parsed.data]);
    groups.set(key, group);
  }
  await recordMalformed(env, batch.queue, malformed);
  const failures = await eachLimited([...groups.values()], EVENT_CONCURRENCY, async (group) => {
    for (const [message, parsed] of group) await handle(message, parsed);
  });
  // The invocation ends here: nothing after it is acked, sent or retried (concurrent groups finished first).
  const ended = failures.find((f) => f.error instanceof InvocationEnded);
  if (ended) throw ended.error;
  if (held.length > 0) {
    // Each message is acked once its own jobs are out; one whose job was refused comes again (its
    // other subscribers are idempotent) and sends only its own jobs again.
    let outcome: Awaited<ReturnType<typeof sendAnalysisJobs>>;
    try {
      outcome = await sendAnalysisJobs(env, held.flatMap((h) => h.jobs));
    } catch (err) {
      outcome = { unsent: new Set(held.flatMap((h) => h.jobs)), error: err };
    }
    const refused = held.filter((h) => h.jobs.some((job) => outcome.unsent.has(job)));
    if (refused.length > 0) log.error({ msg: "analysis jobs could not be queued", queue: batch.queue, count: refused.length, error: String(outcome.error) });
    for (const h of held) {
      if (refused.includes(h)) h.message.retry({ delaySeconds: backoffSeconds(h.message.attempts) });
      else done(h.message, h.parsed);
    }
  }
  await markCreatedDispatched(env, consumed);
}

/**
 * A message no consumer can read (no retry will change that): kept in `queue_failures` with the
 * dead letters for inspection, then acked; if even that write fails it is retried, never dropped.
 * Whatever it asked for is caught by the sweeps (an analysis job by the straggler sweep).
 */
async function recordMalformed(env: Env, queue: string, messages: Message<unknown>[]): Promise<void> {
  if (messages.length === 0) return;
  log.error({ msg: "malformed queue messages: recorded in queue_failures", queue, ids: messages.map((m) => m.id) });
  try {
    const db = createDb(env.DB);
    const rows = messages.map((m) => ({ queue, messageId: m.id, body: `malformed: ${safeJson(m.body)}`.slice(0, 100_000), createdAt: Date.now() }));
    // 4 bound parameters a row, at most 100 a statement.
    for (let i = 0; i < rows.length; i += 20) await db.insert(queueFailures).values(rows.slice(i, i + 20));
    for (const m of messages) m.ack();
  } catch (err) {
    log.error({ msg: "could not record malformed queue messages; retrying them", queue, error: String(err) });
    for (const m of messages) m.retry({ delaySeconds: backoffSeconds(m.attempts) });
  }
}

function safeJson(body: unknown): string {
  try {
    return JSON.stringify(body) ?? String(body);
  } catch {
    return String(body);
  }
}

async function dispatchApi(message: QueueMessage, env: Env, _ctx: ExecutionContext, attempts: number, analysisJobs: AnalysisJob[]): Promise<Outcome | void> {
  switch (message.type) {
    case "domain_event":
      return handleDomainEvent(
        message.event,
        env,
        { ...(message.webhook !== undefined ? { webhook: message.webhook } : {}), ...(message.expiresAt !== undefined ? { expiresAt: message.expiresAt } : {}) },
        analysisJobs,
      );
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
