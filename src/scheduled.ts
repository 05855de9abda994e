import { createDb } from "./db/client";
import { scheduleRetention } from "./domain/retention/retention";
import { sweepStragglers } from "./domain/verification/stragglers";
import { sweepUnarmed } from "./domain/verification/sweep";
import { recheckDomains } from "./domain/tenants/domains";
import { sweepStuckDeliveries } from "./domain/webhooks/stuck";
import { pruneGeocodeCache } from "./providers/geocoder";
import { log } from "./lib/log";

/** wrangler.toml `[triggers]`: this one is the minutely sweep; the other the daily run. */
export const MINUTELY_CRON = "* * * * *";

/**
 * Cron triggers: every minute, the backstops (each on its own, so one failing does not hold up the
 * others): verifications whose Durable Object was never armed (domain/verification/sweep.ts),
 * verifications whose evidence is complete but whose verdict is late (domain/verification/
 * stragglers.ts), webhook deliveries whose queue message was lost (domain/webhooks/stuck.ts), and
 * the re-check of tenants' verified domains that are due (domain/tenants/domains.ts); daily, the
 * retention run and expired cached addresses.
 */
export async function handleScheduled(controller: ScheduledController, env: Env, _ctx: ExecutionContext): Promise<void> {
  const db = createDb(env.DB);
  if (controller.cron === MINUTELY_CRON) {
    const results = await Promise.allSettled([
      sweepUnarmed(env, db, controller.scheduledTime).then((swept) => {
        if (swept.ahead + swept.overdue + swept.unsent > 0) log.info({ msg: "armed verifications the sweep found", cron: controller.cron, ...swept });
      }),
      sweepStragglers(env, db, controller.scheduledTime).then((stragglers) => {
        if (stragglers.redriven + stragglers.failed + stragglers.errors > 0) log.info({ msg: "straggler sweep: re-drove late verifications", cron: controller.cron, ...stragglers });
      }),
      sweepStuckDeliveries(env, db, controller.scheduledTime).then((stuck) => {
        if (stuck.requeued + stuck.failed + stuck.errors > 0) log.info({ msg: "webhook deliveries whose queue message was lost", cron: controller.cron, ...stuck });
      }),
      recheckDomains(env, db, controller.scheduledTime).then((domains) => {
        if (domains.dropped + domains.unresolved + domains.errors > 0) log.info({ msg: "verified domains re-checked", cron: controller.cron, ...domains });
      }),
    ]);
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    for (const f of failures) log.error({ msg: "minutely sweep failed; the next minute tries again", cron: controller.cron, error: String(f.reason) });
    if (failures.length > 0) throw failures[0]!.reason;
    return;
  }
  const tenants = await scheduleRetention(env, db, controller.scheduledTime);
  const geocodes = await pruneGeocodeCache(db, controller.scheduledTime);
  log.info({ msg: "retention run scheduled", cron: controller.cron, tenants, expired_geocodes: geocodes });
}
