import type { Db } from "../../db/client";
import { enforceRateLimit } from "../../durable-objects/rate-limiter-client";
import { ApiError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { iso } from "../../lib/time";
import { hostResolver } from "../../providers/dns";
import { findTenant } from "../tenants/tenants";
import { DELIVERY_TIMEOUT_MS, post } from "./deliveries";
import { activeSecrets, signWebhook } from "./signing";
import { webhookUrlAllowed } from "./url-guard";

export const TEST_EVENT_TYPE = "webhook.test";
/** Test sends per tenant per window: enough to debug a receiver, too few to aim the service at anyone. */
export const TEST_EVENT_LIMIT = { limit: 20, windowMs: 10 * 60_000 } as const;

export interface TestEventResult {
  url: string;
  event: { id: string; type: typeof TEST_EVENT_TYPE; created_at: string; data: { object: { tenant_id: string; message: string } } };
  delivered: boolean;
  status_code?: number;
  error?: string;
  latency_ms: number;
}

/**
 * "Send test event": one signed `webhook.test` POST to `url`, now, with every active secret (as a
 * real delivery), after the same URL guard as `webhook_url`. Nothing is queued, retried or stored:
 * the answer is the attempt itself. Rate-limited per tenant.
 */
export async function sendTestEvent(
  env: Env,
  db: Db,
  tenantId: string,
  url: string,
  options: { local: boolean; now?: () => number; fetcher?: typeof fetch },
): Promise<TestEventResult> {
  const clock = options.now ?? Date.now;
  const guard = await webhookUrlAllowed(url, { local: options.local, resolver: hostResolver(env) });
  if (!guard.ok && guard.reason === "unresolved") {
    throw new ApiError("storage_unavailable", `The URL could not be checked right now: ${guard.message}`, { headers: { "Retry-After": "30" } });
  }
  if (!guard.ok) throw ApiError.invalid({ url: guard.message }, "url is not an allowed webhook destination.");
  await enforceRateLimit(env, `webhook-test:${tenantId}`, TEST_EVENT_LIMIT.limit, TEST_EVENT_LIMIT.windowMs, "Too many test events; try again later.");
  const tenant = await findTenant(db, tenantId);
  if (!tenant) throw ApiError.notFound("tenant");
  const now = clock();
  const event: TestEventResult["event"] = {
    id: newId("event", now),
    type: TEST_EVENT_TYPE,
    created_at: iso(now),
    data: { object: { tenant_id: tenantId, message: "A test event sent from the dashboard or the API. It carries no verification." } },
  };
  const body = JSON.stringify(event);
  const headers = signWebhook(event.id, body, activeSecrets(tenant, now), now);
  const sent = await post(options.fetcher ?? fetch, url, body, headers, DELIVERY_TIMEOUT_MS, clock);
  return {
    url,
    event,
    delivered: sent.ok,
    ...(sent.statusCode !== null ? { status_code: sent.statusCode } : {}),
    ...(sent.error !== null ? { error: sent.error } : {}),
    latency_ms: sent.latencyMs,
  };
}
