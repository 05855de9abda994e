import { ApiError } from "../lib/errors";

/** The counter object of one rate-limit key (e.g. `trial:<client ip>`), shared by every isolate. */
export function rateLimiterObject(env: Env, key: string) {
  return env.RATE_LIMITERS.get(env.RATE_LIMITERS.idFromName(key));
}

/**
 * Counts one request against `limit` per fixed window; over the limit it throws 429
 * `too_many_requests` with `Retry-After` (seconds until the window resets).
 */
export async function enforceRateLimit(env: Env, key: string, limit: number, windowMs: number, message: string): Promise<void> {
  const result = await rateLimiterObject(env, key).hit(limit, windowMs);
  if (!result.allowed) {
    throw new ApiError("too_many_requests", message, { headers: { "Retry-After": String(result.retryAfterSeconds) } });
  }
}

/**
 * Runs `work` in one of `limit` concurrent slots under `key` (shared by every isolate); with every
 * slot held it throws 429 `too_many_requests` with `Retry-After: 1` and `work` never starts. The slot
 * is given back however `work` ends; one never given back lapses after `leaseMs`.
 */
export async function withConcurrencySlot<T>(env: Env, key: string, rule: { limit: number; leaseMs: number; message: string }, work: () => Promise<T>): Promise<T> {
  const limiter = rateLimiterObject(env, key);
  const lease = await limiter.acquire(rule.limit, rule.leaseMs);
  if (lease === null) throw new ApiError("too_many_requests", rule.message, { headers: { "Retry-After": "1" } });
  try {
    return await work();
  } finally {
    await limiter.release(lease);
  }
}
