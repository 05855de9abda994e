import { createDb } from "./db/client";
import { scheduleRetention } from "./domain/retention/retention";

/** Cron triggers (wrangler.toml `[triggers]`): the daily retention run. */
export async function handleScheduled(controller: ScheduledController, env: Env, _ctx: ExecutionContext): Promise<void> {
  const tenants = await scheduleRetention(env, createDb(env.DB), controller.scheduledTime);
  console.log(JSON.stringify({ msg: "retention run scheduled", cron: controller.cron, tenants }));
}
