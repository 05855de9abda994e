import { DurableObject } from "cloudflare:workers";

/**
 * A fixed-window counter per key (one object per client IP for the trial endpoint): exact and shared
 * across isolates, unlike in-memory counters. Counts live in the object's storage; the alarm clears
 * them when the window ends.
 */
export class RateLimiterObject extends DurableObject<Env> {
  /** Counts one request; returns whether it is allowed and, when not, the seconds until the window resets. */
  async hit(limit: number, windowMs: number, now = Date.now()): Promise<{ allowed: boolean; count: number; retryAfterSeconds: number }> {
    const windowStart = now - (now % windowMs);
    const stored = await this.ctx.storage.get<{ start: number; count: number }>("window");
    const current = stored && stored.start === windowStart ? stored : { start: windowStart, count: 0 };
    const resetAt = windowStart + windowMs;
    if (current.count >= limit) {
      return { allowed: false, count: current.count, retryAfterSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)) };
    }
    current.count += 1;
    await this.ctx.storage.put("window", current);
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(resetAt);
    return { allowed: true, count: current.count, retryAfterSeconds: 0 };
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }
}
