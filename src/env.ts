import ipaddr from "ipaddr.js";
import type { Principal } from "./auth/principal";
import { c2paSignerProblems } from "./lib/c2pa-signer-config";
import { ed25519Pkcs8 } from "./lib/pkcs8";
import { SIGNING_PURPOSES, type SigningOverride } from "./lib/signing-keys";

/**
 * Secrets and optional provider settings. Bindings and plain vars are declared in wrangler.toml and
 * typed by `wrangler types` (worker-configuration.d.ts); these are the values that arrive as secrets
 * (`wrangler secret put`, or `.dev.vars` locally) and are therefore invisible to the generator.
 */
export interface Secrets {
  /**
   * The root of the per-purpose HMAC keys (lib/signing-keys.ts: evidence URLs, upload URLs, list
   * cursors, one-time code hashes), each derived with HKDF.
   */
  SIGNING_SECRET?: string;
  /** Optional per-purpose roots: setting one rotates that purpose's key alone (lib/signing-keys.ts). */
  SIGNING_SECRET_EVIDENCE_URLS?: string;
  SIGNING_SECRET_UPLOAD_URLS?: string;
  SIGNING_SECRET_CURSORS?: string;
  SIGNING_SECRET_OTP_CODES?: string;
  SIGNING_SECRET_BURST_NONCES?: string;
  /** HS256 key of dashboard session JWTs. */
  SESSION_SECRET?: string;
  /**
   * The Ed25519 private key that signs certificates (PKCS#8, PEM or one-line base64). The API Worker
   * only: the analysis Worker signs nothing and never holds it. Rotation: docs/certificates.md, "Certificate keys".
   */
  CERTIFICATE_SIGNING_KEY?: string;
  /**
   * The deployment's C2PA signer (Content Credentials on received captures, docs/certificates.md
   * "Content Credentials signer"): an ECDSA P-256 private key (PKCS#8, PEM or one-line base64) and its
   * certificate chain (PEM, the signer's certificate first). Both unset: no capture has a `credentials_url`.
   */
  C2PA_SIGNING_KEY?: string;
  C2PA_SIGNING_CERTS?: string;
  /** The deployment's name in the manifests it signs (default "Verification service"). */
  DEPLOYMENT_NAME?: string;
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
  /** Comma-separated SHA-256 fingerprints of C2PA signer (or CA) certificates pinned as trust anchors, beside the trust list. */
  C2PA_TRUSTED_SIGNERS?: string;
  /** PEM certificates added to the C2PA trust anchors (signers' roots or intermediates, TSAs). */
  C2PA_TRUST_ANCHORS?: string;
  /** `official` (default): the shipped C2PA Trust List and TSA Trust List are anchors; `none`: only C2PA_TRUST_ANCHORS / C2PA_TRUSTED_SIGNERS. */
  C2PA_TRUST_LIST?: string;
  /** Web reverse-image search (Google Cloud Vision WEB_DETECTION) filling `found_online`. */
  GOOGLE_VISION_API_KEY?: string;
  GOOGLE_VISION_URL?: string;
  /**
   * AI-generated image detection by Sightengine (model `genai`): both set, it is configured; the
   * chosen provider (AI_DETECTION_PROVIDER) is asked about each live capture that requires `ai` and
   * carries no provenance marker. SIGHTENGINE_URL: tests only.
   */
  SIGHTENGINE_API_USER?: string;
  SIGHTENGINE_API_SECRET?: string;
  SIGHTENGINE_URL?: string;
  /** Hive's AI-Generated Image and Video Detection (a V2 project's API key). HIVE_URL: tests only. */
  HIVE_API_KEY?: string;
  HIVE_URL?: string;
  /** Reality Defender's detection API (upload, then poll). REALITY_DEFENDER_URL: tests only. */
  REALITY_DEFENDER_API_KEY?: string;
  REALITY_DEFENDER_URL?: string;
  /**
   * Which configured detection provider the analysis asks (`sightengine`, `hive`,
   * `reality-defender`); unset: the first configured in that order. One provider is asked, never
   * several (providers/ai-detection.ts).
   */
  AI_DETECTION_PROVIDER?: string;
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
    /** A capture-flow route looked its verification up (routes/capture-flow.ts, `deadLinkFirst`). */
    linkLookedUp?: boolean;
  };
};

export type Environment = "development" | "staging" | "production";

/**
 * Secrets the Worker cannot run without. wrangler.toml declares them for staging and production
 * (`[env.*.secrets] required`), and `npm run build:check` fails when a deployable environment does not.
 */
export const REQUIRED_SECRETS = ["SIGNING_SECRET", "SESSION_SECRET"] as const;
/** The API Worker's secrets: the required ones and the certificate signing key, which no other Worker holds. */
export const API_WORKER_SECRETS = [...REQUIRED_SECRETS, "CERTIFICATE_SIGNING_KEY"] as const;
export const MIN_SECRET_LENGTH = 32;

/** The deployment is misconfigured: every request answers 500 and logs this message once. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

export interface Settings {
  environment: Environment;
  /** Which API keys this deployment accepts: `test` (pk_test_) or `live` (pk_live_). */
  keyEnvironment: "test" | "live";
  baseUrl: string;
  sessionSecret: string;
  /** The certificate signing key (Ed25519 PKCS#8 DER) when this Worker holds one; `apiSettings` requires it. */
  certificateKey: Uint8Array | null;
  /**
   * Local development: `ENVIRONMENT=development` *and* a loopback `PUBLIC_BASE_URL`. Dev-only
   * behaviour that serves a request also needs a loopback request host (`isLocalRequest`).
   */
  isLocal: boolean;
}

const cache = new WeakMap<object, Settings>();

/**
 * Reads and checks the deployment's configuration once per env object (the first request of an
 * isolate); throws a ConfigError naming what is wrong when it is unusable.
 */
export function settings(env: Env): Settings {
  const cached = cache.get(env);
  if (cached) return cached;
  const environment = parseEnvironment(env.ENVIRONMENT);
  const problems = secretProblems(env);
  if (problems.length > 0) throw new ConfigError(problems.join("; "));
  const baseUrl = (env.PUBLIC_BASE_URL || "http://localhost:8787").replace(/\/+$/, "");
  const value: Settings = {
    environment,
    keyEnvironment: environment === "production" ? "live" : "test",
    baseUrl,
    sessionSecret: env.SESSION_SECRET!,
    certificateKey: env.CERTIFICATE_SIGNING_KEY ? ed25519Pkcs8(env.CERTIFICATE_SIGNING_KEY) : null,
    isLocal: environment === "development" && isLoopbackHost(new URL(baseUrl).hostname),
  };
  cache.set(env, value);
  return value;
}

/**
`settings(env)` for the API Worker (its requests and its queue consumers): the certificate signing
 * key must be there too. Throws a ConfigError naming what is wrong.
 */
export function apiSettings(env: Env): Settings & { certificateKey: Uint8Array } {
  const value = settings(env);
  if (!value.certificateKey) throw new ConfigError("CERTIFICATE_SIGNING_KEY is missing");
  return value as Settings & { certificateKey: Uint8Array };
}

/**
 * Every required secret present and at least 32 characters, the two keys distinct, a per-purpose
 * signing override, when set, as long and distinct from the session key too, the certificate
 * signing key (where there is one) an Ed25519 private key, and the C2PA signer (where there is one)
 * a P-256 key with a PEM chain.
 */
export function secretProblems(
  env: Partial<Record<(typeof API_WORKER_SECRETS)[number] | SigningOverride | "C2PA_SIGNING_KEY" | "C2PA_SIGNING_CERTS", string | undefined>>,
): string[] {
  const problems: string[] = [];
  for (const name of REQUIRED_SECRETS) {
    const value = env[name];
    if (!value) problems.push(`${name} is missing`);
    else if (value.length < MIN_SECRET_LENGTH) problems.push(`${name} is shorter than ${MIN_SECRET_LENGTH} characters`);
  }
  if (env.SESSION_SECRET && env.SESSION_SECRET === env.SIGNING_SECRET) problems.push("SESSION_SECRET must differ from SIGNING_SECRET");
  if (env.CERTIFICATE_SIGNING_KEY && !ed25519Pkcs8(env.CERTIFICATE_SIGNING_KEY)) {
    problems.push("CERTIFICATE_SIGNING_KEY is not an Ed25519 private key in PKCS#8 (PEM or base64)");
  }
  problems.push(...c2paSignerProblems(env));
  for (const name of Object.values(SIGNING_PURPOSES)) {
    const value = env[name];
    if (value === undefined || value === "") continue;
    if (value.length < MIN_SECRET_LENGTH) problems.push(`${name} is shorter than ${MIN_SECRET_LENGTH} characters`);
    else if (value === env.SESSION_SECRET) problems.push(`${name} must differ from SESSION_SECRET`);
  }
  return problems;
}

function parseEnvironment(value: string | undefined): Environment {
  if (value === "development" || value === "staging" || value === "production") return value;
  throw new ConfigError(`ENVIRONMENT must be development, staging or production (got ${JSON.stringify(value)})`);
}

/** `localhost`, `*.localhost`, 127.0.0.0/8 or ::1 (a URL's `hostname`, IPv6 in brackets). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  const literal = host.startsWith("[") ? host.slice(1, -1) : host;
  if (!ipaddr.isValid(literal)) return false;
  let ip = ipaddr.parse(literal);
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  return ip.range() === "loopback";
}

/**
 * Whether a request may see local-development behaviour (the dev sign-in provider, the outbox, no
 * SSRF guard): a local deployment (`isLocal`) reached through a loopback host. A development config
 * that ended up behind a public hostname therefore behaves like any other deployment.
 */
export function isLocalRequest(env: Env, requestUrl: string): boolean {
  return settings(env).isLocal && isLoopbackHost(new URL(requestUrl).hostname);
}
