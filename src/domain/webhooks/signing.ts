import { Webhook } from "standardwebhooks";

/*
 * Standard Webhooks signing through the reference library (`standardwebhooks`, pure JS, runs in
 * workerd): `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` per active secret, space-separated.
 * During a rotation window both the new and the previous secret sign, so a receiver holding
 * either one verifies.
 */

export interface TenantSecrets {
  webhookSecret: string;
  webhookSecretPrevious: string | null;
  webhookSecretPreviousExpiresAt: number | null;
}

/** The secrets that sign at `now`: the current one, plus the previous one inside its window. */
export function activeSecrets(secrets: TenantSecrets, now: number): string[] {
  const out = [secrets.webhookSecret];
  const previous = secrets.webhookSecretPrevious;
  if (previous && (secrets.webhookSecretPreviousExpiresAt ?? 0) > now) out.push(previous);
  return out;
}

export type SignedHeaders = {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
};

export function signWebhook(id: string, body: string, secrets: string[], now: number): SignedHeaders {
  const at = new Date(Math.floor(now / 1000) * 1000);
  return {
    "webhook-id": id,
    "webhook-timestamp": String(at.getTime() / 1000),
    "webhook-signature": secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(" "),
  };
}
