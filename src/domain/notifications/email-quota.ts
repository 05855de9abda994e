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

export function notifyEmailLimiterKey(tenantId: string): string {
  return `notify-email:${tenantId}`;
}

/** Takes one of the tenant's notify_email allowance for today; 429 `too_many_requests` when spent. */
export async function reserveNotifyEmail(env: Env, tenantId: string): Promise<void> {
  const limit = notifyEmailDailyLimit(env);
  await enforceRateLimit(
    env,
    notifyEmailLimiterKey(tenantId),
    limit,
    DAY_MS,
    `This tenant may create ${limit} verifications with notify_email per day (UTC) and has reached that cap; leave notify_email out or try again after midnight UTC.`,
  );
}
