import { enforceRateLimit } from "../../durable-objects/rate-limiter-client";

/*
 * `notify_email` sends mail to an address the creator names, so it is rationed per tenant: each
 * verification created with it (API, bot, link-template start alike) takes one of the tenant's
 * daily allowance, counted in a Durable Object per tenant and reset at 00:00 UTC. Beyond it the
 * creation is refused with 429 rather than silently created without its email.
 */

/** Default daily allowance: ample for a tenant's own inbox, useless as a mailing list. */
export const DEFAULT_NOTIFY_EMAIL_DAILY_LIMIT = 100;
const DAY_MS = 24 * 60 * 60 * 1000;

/** `NOTIFY_EMAIL_DAILY_LIMIT` (a whole number; 0 turns `notify_email` off), else the default. */
export function notifyEmailDailyLimit(env: Env): number {
  const raw = env.NOTIFY_EMAIL_DAILY_LIMIT?.trim();
  if (raw === undefined || raw === "") return DEFAULT_NOTIFY_EMAIL_DAILY_LIMIT;
  if (!/^\d{1,9}$/.test(raw)) throw new Error(`NOTIFY_EMAIL_DAILY_LIMIT must be a whole number (got ${JSON.stringify(raw)})`);
  return Number(raw);
}

/**
 * Whose creations share an allowance: the tenant's own callers (API keys, sessions, the bot) or
 * its public template links, which anyone may open. Separate, so that visitors opening a link
 * cannot spend the allowance the tenant's back end relies on (webhook probe of 2026-12-07).
 */
export type NotifyEmailPool = "tenant" | "links";

export function notifyEmailLimiterKey(tenantId: string, pool: NotifyEmailPool = "tenant"): string {
  return pool === "tenant" ? `notify-email:${tenantId}` : `notify-email:${tenantId}:links`;
}

/** Takes one of the pool's notify_email allowance for today; 429 `too_many_requests` when spent. */
export async function reserveNotifyEmail(env: Env, tenantId: string, pool: NotifyEmailPool = "tenant"): Promise<void> {
  const limit = notifyEmailDailyLimit(env);
  const who = pool === "tenant" ? "This tenant" : "This tenant's template links";
  await enforceRateLimit(
    env,
    notifyEmailLimiterKey(tenantId, pool),
    limit,
    DAY_MS,
    `${who} may create ${limit} verifications with notify_email per day (UTC) and reached that cap; leave notify_email out or try again after midnight UTC.`,
  );
}
