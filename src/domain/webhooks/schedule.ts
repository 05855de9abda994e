/*
 * When a failed webhook attempt is tried again. Exponential backoff (doubling from a base) capped
 * per retry, with jitter so endpoints that failed together do not retry together: ±20 % while the
 * delay grows, ±5 % once it is at the cap (by then twelve ±20 % draws have spread the endpoints over
 * hours, and a wide jitter on eight-hour steps would make the whole span a lottery). With the
 * production base of 8 s and the webhooks consumer's `max_retries = 21` (wrangler.toml), the retries
 * span 75.7 to 86.5 hours whatever the draws: a receiver down for 72 hours still gets every webhook,
 * and the last retry comes before the queue's 4-day message retention. Then Queues moves the
 * message to the dead-letter queue.
 */

import { uniform } from "../../lib/random";

/** Must equal `max_retries` of the webhooks queue consumer in wrangler.toml. */
export const WEBHOOK_MAX_RETRIES = 21;
export const PRODUCTION_BASE_SECONDS = 8;
/** Per-retry cap, below the 12 h (43,200 s) maximum delay Queues accepts. */
export const MAX_DELAY_SECONDS = 8 * 60 * 60;
export const JITTER = 0.2;
/** Jitter of the delays at the cap. */
export const CAPPED_JITTER = 0.05;

export interface RetrySchedule {
  /** First retry delay; each later one doubles. Tests set 0 (retry at once). */
  baseSeconds: number;
  /** Uniform in [0, 1); injectable so the schedule is a pure function. */
  random?: () => number;
}

/** Seconds to wait after the `attempt`-th failed attempt (1-based) before the next one. */
export function retryDelaySeconds(attempt: number, schedule: RetrySchedule): number {
  const nominal = Math.min(schedule.baseSeconds * 2 ** Math.max(0, attempt - 1), MAX_DELAY_SECONDS);
  const random = schedule.random ?? uniform;
  const jitter = nominal >= MAX_DELAY_SECONDS ? CAPPED_JITTER : JITTER;
  const factor = 1 - jitter + 2 * jitter * random();
  return Math.min(Math.round(nominal * factor), 43_200);
}

/** The schedule of this deployment: `WEBHOOK_RETRY_BASE_SECONDS` overrides the 8 s base (tests use 0). */
export function retryScheduleFor(env: { WEBHOOK_RETRY_BASE_SECONDS?: string }): RetrySchedule {
  const configured = Number(env.WEBHOOK_RETRY_BASE_SECONDS);
  const base = env.WEBHOOK_RETRY_BASE_SECONDS !== undefined && Number.isFinite(configured) && configured >= 0 ? configured : PRODUCTION_BASE_SECONDS;
  return { baseSeconds: base };
}
