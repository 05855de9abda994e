import { createDb } from "./db/client";
import { scheduleRetention } from "./domain/retention/retention";
import { pruneGeocodeCache } from "./providers/geocoder";
import { log } from "./lib/log";

/** Cron triggers (wrangler.toml `[triggers]`): the daily retention run, and expired cached addresses. */
export async function handleScheduled(controller: ScheduledController, env: Env, _ctx: ExecutionContext): Promise<void> {
  const db = createDb(env.DB);
  const tenants = await scheduleRetention(env, db, controller.scheduledTime);
  const geocodes = await pruneGeocodeCache(db, controller.scheduledTime);
  log.info({ msg: "retention run scheduled", cron: controller.cron, tenants, expired_geocodes: geocodes });
}
