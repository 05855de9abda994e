import { toHex } from "./crypto";

/**
 * One HMAC key per purpose, derived with HKDF-SHA256 from `SIGNING_SECRET` (RFC 5869: salt fixed,
 * `info` = the purpose), so a key that leaks or must be retired for one purpose says nothing about
 * the others, and each purpose can be rotated alone: set its override secret (the environment
 * variable named here) and only that purpose's key changes (it is then derived from the override).
 * Rotating `SIGNING_SECRET` itself changes every purpose that has no override.
 *
 * What a rotation breaks is the values signed under the old key that are still in flight: evidence
 * URLs (5 minutes; a client reads the capture again for a fresh one), upload URLs (5 minutes; the
 * page mints another), list cursors (a client starts the listing again) and one-time codes not yet
 * entered (10 minutes; the user asks for another) and burst nonces not yet used (30 minutes: the
 * capture that carries one reads `depth` not assessed, `burst_nonce_invalid`). None is kept longer,
 * so no old key is honoured.
 */
export const SIGNING_PURPOSES = {
  evidence_urls: "SIGNING_SECRET_EVIDENCE_URLS",
  upload_urls: "SIGNING_SECRET_UPLOAD_URLS",
  cursors: "SIGNING_SECRET_CURSORS",
  otp_codes: "SIGNING_SECRET_OTP_CODES",
  burst_nonces: "SIGNING_SECRET_BURST_NONCES",
} as const;

export type SigningPurpose = keyof typeof SIGNING_PURPOSES;
export type SigningOverride = (typeof SIGNING_PURPOSES)[SigningPurpose];

/** Domain separation of this service's derivations (HKDF salt): changing it rotates every key. */
const SALT = "verification-service/signing-keys/v1";
const encoder = new TextEncoder();

const cache = new WeakMap<object, Map<SigningPurpose, Promise<string>>>();

/**
 * The key of `purpose` (hex of 32 derived bytes), used wherever that purpose used to take
 * `SIGNING_SECRET` itself; computed once per env object (an isolate's configuration).
 */
export function signingKey(env: Env, purpose: SigningPurpose): Promise<string> {
  let keys = cache.get(env);
  if (!keys) cache.set(env, (keys = new Map()));
  let key = keys.get(purpose);
  if (!key) {
    const secret = env[SIGNING_PURPOSES[purpose]] || env.SIGNING_SECRET;
    if (!secret) return Promise.reject(new Error("SIGNING_SECRET is missing"));
    key = deriveKey(secret, purpose);
    keys.set(purpose, key);
  }
  return key;
}

export async function deriveKey(secret: string, purpose: string): Promise<string> {
  const ikm = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt: encoder.encode(SALT), info: encoder.encode(purpose) }, ikm, 256);
  return toHex(bits);
}
