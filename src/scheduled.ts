import { createDb } from "./db/client";
import { scheduleRetention } from "./domain/retention/retention";
import { sweepUnarmed } from "./domain/verification/sweep";
import { pruneGeocodeCache } from "./providers/geocoder";
import { log } from "./lib/log";

/** wrangler.toml `[triggers]`: this one is the minutely sweep; the other the daily run. */
export const MINUTELY_CRON = "* * * * *";

/**
 * Cron triggers: every minute, the backstop for verifications whose Durable Object was never armed
 * (domain/verification/sweep.ts); daily, the retention run and expired cached addresses.
 */
export async function handleScheduled(controller: ScheduledController, env: Env, _ctx: ExecutionContext): Promise<void> {
  const db = createDb(env.DB);
  if (controller.cron === MINUTELY_CRON) {
    const swept = await sweepUnarmed(env, db, controller.scheduledTime);
    if (swept.overdue + swept.unsent > 0) log.info({ msg: "armed verifications the sweep found", cron: controller.cron, ...swept });
    return;
  }
  const tenants = await scheduleRetention(env, db, controller.scheduledTime);
  const geocodes = await pruneGeocodeCache(db, controller.scheduledTime);
  log.info({ msg: "retention run scheduled", cron: controller.cron, tenants, expired_geocodes: geocodes });
}
