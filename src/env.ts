import type { Principal } from "./auth/principal";

/**
 * Secrets and optional provider settings. Bindings and plain vars are declared in wrangler.toml and
 * typed by `wrangler types` (worker-configuration.d.ts); these are the values that arrive as secrets
 * (`wrangler secret put`, or `.dev.vars` locally) and are therefore invisible to the generator.
 */
export interface Secrets {
  /** HMAC key for upload URLs and list cursors. */
  SIGNING_SECRET?: string;
  /** HS256 key of dashboard session JWTs. */
  SESSION_SECRET?: string;
  /** Browser attestation (Turnstile-compatible siteverify). */
  ATTESTATION_SECRET?: string;
  ATTESTATION_VERIFY_URL?: string;
  ATTESTATION_SITE_KEY?: string;
  /** `direct` for presigned uploads straight to R2 (production option); the Worker upload route otherwise. */
  UPLOAD_MODE?: string;
  R2_ACCOUNT_ID?: string;
  R2_ACCESS_KEY_ID?: string;
  R2_SECRET_ACCESS_KEY?: string;
  R2_BUCKET_NAME?: string;
  /** Outbound email (HTTP email API); unset or local → recorded in the dev outbox only. */
  EMAIL_API_URL?: string;
  EMAIL_API_KEY?: string;
  EMAIL_FROM?: string;
  /** Verifications with `notify_email` per tenant per UTC day (default 100; 0 turns notify_email off). */
  NOTIFY_EMAIL_DAILY_LIMIT?: string;
  /** Webhook retry backoff base in seconds (default 8: ~3 days over 20 retries); tests set 0. */
  WEBHOOK_RETRY_BASE_SECONDS?: string;
  /** DNS-over-HTTPS JSON endpoint for the webhook SSRF guard (default Cloudflare's resolver). */
  DNS_RESOLVER_URL?: string;
  /** Trial verifications (origin_channel "wa") send their verdict to this number. */
  TRIAL_WHATSAPP_NUMBER?: string;
  /** WhatsApp Cloud API; unset or local → recorded in the dev outbox only. */
  WHATSAPP_API_URL?: string;
  WHATSAPP_PHONE_NUMBER_ID?: string;
  WHATSAPP_ACCESS_TOKEN?: string;
  /** Dashboard sign-in through a generic OpenID Connect provider (`/v1/auth/oidc/login`); off unless all three are set. */
  OIDC_ISSUER?: string;
  OIDC_CLIENT_ID?: string;
  OIDC_CLIENT_SECRET?: string;
  /** Shared secret of the messaging bot's `X-Bot-Auth` HMAC; bot endpoints refuse everything without it. */
  BOT_SECRET?: string;
  /** The operator's own tenant that `POST /v1/public/trial/start` creates verifications under. */
  TRIAL_TENANT_ID?: string;
  /** Vision judge (context/object/condition) on an OpenAI-compatible endpoint; else the AI binding, else none. */
  VISION_API_URL?: string;
  VISION_API_KEY?: string;
  VISION_MODEL?: string;
  /** Nominatim-compatible geocoder for `expected_location`; unset → only "lat,lng" addresses resolve. */
  GEOCODER_URL?: string;
  GEOCODER_USER_AGENT?: string;
  GEOCODER_EMAIL?: string;
  GEOCODER_RATE_PER_SECOND?: string;
  /** Comma-separated SHA-256 fingerprints of C2PA signer (or issuing CA) certificates trusted for likely_human. */
  C2PA_TRUSTED_SIGNERS?: string;
  /** Web reverse-image search (Google Cloud Vision WEB_DETECTION) filling `found_online`. */
  GOOGLE_VISION_API_KEY?: string;
  GOOGLE_VISION_URL?: string;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Env extends Secrets {}
  // eslint-disable-next-line @typescript-eslint/no-namespace -- augmenting the runtime's global namespace
  namespace Cloudflare {
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface Env extends Secrets {}
  }
}

export type AppEnv = {
  Bindings: Env;
  Variables: {
    requestId: string;
    principal: Principal;
  };
};

export type Environment = "development" | "staging" | "production";

export interface Settings {
  environment: Environment;
  /** Which API keys this deployment accepts: `test` (pk_test_) or `live` (pk_live_). */
  keyEnvironment: "test" | "live";
  baseUrl: string;
  signingSecret: string;
  isLocal: boolean;
}

const cache = new WeakMap<object, Settings>();

/** Reads and checks the deployment's configuration once per env object; throws when it is unusable. */
export function settings(env: Env): Settings {
  const cached = cache.get(env);
  if (cached) return cached;
  const environment = parseEnvironment(env.ENVIRONMENT);
  const signingSecret = env.SIGNING_SECRET;
  if (!signingSecret || signingSecret.length < 32) {
    throw new Error("SIGNING_SECRET is missing or shorter than 32 characters");
  }
  const value: Settings = {
    environment,
    keyEnvironment: environment === "production" ? "live" : "test",
    baseUrl: (env.PUBLIC_BASE_URL || "http://localhost:8787").replace(/\/+$/, ""),
    signingSecret,
    isLocal: environment === "development",
  };
  cache.set(env, value);
  return value;
}

function parseEnvironment(value: string | undefined): Environment {
  if (value === "development" || value === "staging" || value === "production") return value;
  throw new Error(`ENVIRONMENT must be development, staging or production (got ${JSON.stringify(value)})`);
}
