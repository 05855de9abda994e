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
    // The synchronous KV of SQLite-backed objects: no await between read and write, and no
    // round of the event loop per call (this runs before every capture-flow write).
    const stored = this.ctx.storage.kv.get<{ start: number; count: number }>("window");
    const fresh = !stored || stored.start !== windowStart;
    const current = fresh ? { start: windowStart, count: 0 } : stored;
    const resetAt = windowStart + windowMs;
    if (current.count >= limit) {
      return { allowed: false, count: current.count, retryAfterSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)) };
    }
    current.count += 1;
    this.ctx.storage.kv.put("window", current);
    // A new window clears itself when it ends.
    if (fresh) await this.ctx.storage.setAlarm(resetAt);
    return { allowed: true, count: current.count, retryAfterSeconds: 0 };
  }

  /**
   * Counts `n` units at once (a batch's analysis jobs of one tenant, `events/analysis-jobs.ts`);
   * returns how many of them still fit within `limit` in this window, the rest being over it. Never refuses.
   */
  async take(n: number, limit: number, windowMs: number, now = Date.now()): Promise<{ within: number; count: number }> {
    const windowStart = now - (now % windowMs);
    const stored = this.ctx.storage.kv.get<{ start: number; count: number }>("window");
    const fresh = !stored || stored.start !== windowStart;
    const before = fresh ? 0 : stored.count;
    const count = before + n;
    this.ctx.storage.kv.put("window", { start: windowStart, count });
    if (fresh) await this.ctx.storage.setAlarm(windowStart + windowMs);
    return { within: Math.max(0, Math.min(n, limit - before)), count };
  }

  /**
   * Takes one of `limit` concurrent slots under this key (one tenant's report renders): a lease id,
   * or null while every slot is held. A slot its holder never releases (the isolate died mid-render)
   * lapses after `leaseMs`. No alarm: lapsed leases are dropped here, released ones by `release`.
   */
  async acquire(limit: number, leaseMs: number, now = Date.now()): Promise<string | null> {
    const held = this.liveLeases(now);
    if (Object.keys(held).length >= limit) return null;
    const lease = crypto.randomUUID();
    held[lease] = now + leaseMs;
    this.ctx.storage.kv.put("leases", held);
    return lease;
  }

  /** Gives a slot back (a second release of the same lease does nothing). */
  async release(lease: string, now = Date.now()): Promise<void> {
    const held = this.liveLeases(now);
    delete held[lease];
    if (Object.keys(held).length === 0) this.ctx.storage.kv.delete("leases");
    else this.ctx.storage.kv.put("leases", held);
  }

  /** How many slots are held now (for tests and operators). */
  async held(now = Date.now()): Promise<number> {
    return Object.keys(this.liveLeases(now)).length;
  }

  private liveLeases(now: number): Record<string, number> {
    const stored = this.ctx.storage.kv.get<Record<string, number>>("leases") ?? {};
    return Object.fromEntries(Object.entries(stored).filter(([, until]) => until > now));
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }
}
