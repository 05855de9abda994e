import { Webhook, WebhookVerificationError } from "standardwebhooks";
import type { components } from "./schema.js";

export { WebhookVerificationError };

/**
 * What a webhook delivers: a verification's event, or the console's test send (`webhook.test`, whose
 * `data.object` is `{tenant_id, message}`). Narrow on `type`.
 */
export type ReceivedWebhook = components["schemas"]["WebhookEvent"] | components["schemas"]["WebhookTestEvent"];

/**
 * Verifies a webhook request (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) with the tenant's secret (`whsec_…`) and returns its event. Throws
 * `WebhookVerificationError` when the signature does not match or the timestamp is over 5 minutes
 * off. Pass the body exactly as received: parsing and re-serialising it breaks the signature.
 */
export function verifyWebhook(
  secret: string,
  payload: string,
  headers: Headers | Record<string, string>,
): ReceivedWebhook {
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  const lowerCased = Object.fromEntries(entries.map(([name, value]) => [name.toLowerCase(), value]));
  return new Webhook(secret).verify(payload, lowerCased) as ReceivedWebhook;
}
