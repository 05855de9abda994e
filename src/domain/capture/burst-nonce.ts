import { base64UrlDecode, base64UrlEncode, hmacSha256 } from "../../lib/crypto";

/*
 * The burst nonce (CONTRACT.md, fifth release): the service gives the capture page a fresh value
 * before a live capture, the page sends it back with the burst, and the analysis checks that this
 * service issued it, for this verification, at most NONCE_TTL_MS before the capture arrived, and
 * that no other capture of the verification carried it. Stateless: 16 random bytes, the issue time
 * and an HMAC (key purpose `burst_nonces`) over both and the verification id; single use is
 * checked against the verification's other captures. Its characters are those Turnstile accepts as
 * `cData`, so an attestation token can be bound to the same value.
 */

export const NONCE_TTL_MS = 30 * 60 * 1000;
const RANDOM_BYTES = 16;
const TIME_BYTES = 6;
const MAC_BYTES = 16;
const PURPOSE = "burst-nonce/1";

export interface IssuedNonce {
  nonce: string;
  expiresAt: number;
}

function timeBytes(ms: number): Uint8Array {
  const out = new Uint8Array(TIME_BYTES);
  let v = Math.floor(ms);
  for (let i = TIME_BYTES - 1; i >= 0; i -= 1) {
    out[i] = v % 256;
    v = Math.floor(v / 256);
  }
  return out;
}

function timeOf(bytes: Uint8Array): number {
  let v = 0;
  for (const b of bytes) v = v * 256 + b;
  return v;
}

const message = (verificationId: string, body: Uint8Array) => `${PURPOSE}.${verificationId}.${base64UrlEncode(body)}`;

export async function issueNonce(key: string, verificationId: string, now: number): Promise<IssuedNonce> {
  const body = new Uint8Array(RANDOM_BYTES + TIME_BYTES);
  crypto.getRandomValues(body.subarray(0, RANDOM_BYTES));
  body.set(timeBytes(now), RANDOM_BYTES);
  const mac = (await hmacSha256(key, message(verificationId, body))).subarray(0, MAC_BYTES);
  const all = new Uint8Array(body.length + MAC_BYTES);
  all.set(body);
  all.set(mac, body.length);
  return { nonce: base64UrlEncode(all), expiresAt: now + NONCE_TTL_MS };
}

/** What checking a burst's nonce found (each failure has its own evidence code). */
export type NonceCheck = { ok: true; issuedAt: number } | { ok: false; code: "burst_nonce_invalid" | "burst_nonce_expired"; detail: string };

/**
 * Whether `nonce` was issued by this service for `verificationId`, no more than NONCE_TTL_MS before
 * `receivedAt` (when the capture arrived) and not after it. Single use is the caller's to check.
 */
export async function checkNonce(key: string, verificationId: string, nonce: string, receivedAt: number): Promise<NonceCheck> {
  const bytes = base64UrlDecode(nonce);
  if (!bytes || bytes.length !== RANDOM_BYTES + TIME_BYTES + MAC_BYTES) return { ok: false, code: "burst_nonce_invalid", detail: "not a nonce this service issues" };
  const body = bytes.subarray(0, RANDOM_BYTES + TIME_BYTES);
  // The MAC is truncated, so WebCrypto's verify (which wants it whole) cannot compare it: recompute, compare in constant time.
  const expected = (await hmacSha256(key, message(verificationId, body))).subarray(0, MAC_BYTES);
  if (!sameBytes(expected, bytes.subarray(body.length))) {
    return { ok: false, code: "burst_nonce_invalid", detail: "not issued by this service for this verification" };
  }
  const issuedAt = timeOf(body.subarray(RANDOM_BYTES));
  if (issuedAt > receivedAt + 60_000) return { ok: false, code: "burst_nonce_invalid", detail: "issued after the capture arrived" };
  if (receivedAt - issuedAt > NONCE_TTL_MS) {
    return { ok: false, code: "burst_nonce_expired", detail: `issued ${Math.round((receivedAt - issuedAt) / 60_000)} min before the capture arrived (valid for ${NONCE_TTL_MS / 60_000})` };
  }
  return { ok: true, issuedAt };
}

/** Constant-time comparison of two equal-length byte strings. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
