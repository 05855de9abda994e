import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { rateLimiterObject } from "../../src/durable-objects/rate-limiter-client";

/** Ends a rate-limit window now (runs the limiter's alarm): tests must not leave alarms behind. */
export async function endWindow(key: string): Promise<void> {
  await runDurableObjectAlarm(rateLimiterObject(env, key));
}
