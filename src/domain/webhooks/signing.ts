import { Webhook } from "standardwebhooks";
import type { RetiringSecret } from "../../db/schema";

/*
 * Standard Webhooks signing through the reference library (`standardwebhooks`, pure JS, runs in
 * workerd): `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` per active secret, space-separated.
 * During a rotation's window the secrets rotated out sign too, so a receiver holding any of them
 * verifies.
 */

export interface TenantSecrets {
  webhookSecret: string;
  webhookSecretsRetiring: RetiringSecret[] | null;
}

/** The secrets rotated out that still sign at `now`, newest first. */
export function stillSigning(retiring: RetiringSecret[] | null, now: number): RetiringSecret[] {
  return (retiring ?? []).filter((s) => s.expires_at > now);
}

/** The secrets that sign at `now`: the current one, plus those rotated out inside their windows. */
export function activeSecrets(secrets: TenantSecrets, now: number): string[] {
  return [secrets.webhookSecret, ...stillSigning(secrets.webhookSecretsRetiring, now).map((s) => s.secret)];
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
