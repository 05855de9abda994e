import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { rateLimiterObject } from "../../src/durable-objects/rate-limiter-client";

/** Ends a rate-limit window now (runs the limiter's alarm): tests must not leave alarms behind. */
export async function endWindow(key: string): Promise<void> {
  await runDurableObjectAlarm(rateLimiterObject(env, key));
}

/** Limiters count in fixed windows: wait out a window boundary that would fall inside the next 15 s. */
export async function awayFromWindowEdge(windowMs: number): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
