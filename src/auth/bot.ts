import { lt } from "drizzle-orm";
import type { Db } from "../db/client";
import { botNonces } from "../db/schema";
import { base64UrlEncode, hmacSha256, hmacVerify, toHex } from "../lib/crypto";

/**
 * The messaging bot signs each request with `X-Bot-Auth`, in one of two forms:
 * - `t=<unix seconds>,v1=<sig>,v2=<sig>` (either signature alone, or both):
 *   - `v1` = hex HMAC-SHA256(secret, "<t>.<raw body>"): CONTRACT.md's scheme, accepted alone;
 *   - `v2` = hex HMAC-SHA256(secret, "<t>.<METHOD>.<path>.<raw body>"), the path with its query
 *     string as sent (`/v1/bot/otp`): it also binds the endpoint, so a request signed for one
 *     endpoint cannot be played against another that takes the same body.
 *   Every signature the header carries must verify (a v2 for another endpoint is refused even beside
 *   a good v1), so a bot that sends v2 gets the endpoint binding.
 * - `t=<unix seconds>,n=<nonce>,v2=<sig>`: the nonce (16–64 of `[A-Za-z0-9_-]`, fresh per request)
 *   is signed too, `v2` = hex HMAC-SHA256(secret, "<t>.<n>.<METHOD>.<path>.<raw body>"). Without it
 *   two different requests with the same body to the same endpoint in the same second carry the same
 *   signature, and the second is refused as a replay. A header with `n` may not carry `v1`: v1 cannot
 *   cover the nonce, so beside it a v1 would still collide (or, left unclaimed, be replayable alone).
 *   The nonce-less and nonce texts cannot be confused: the nonce is at least 16 characters, never a
 *   method, and a path starts with "/".
 * A signature is accepted within ±300 s of its timestamp and only once (replays are refused).
 */
export const BOT_AUTH_HEADER = "X-Bot-Auth";
export const BOT_TOLERANCE_SECONDS = 300;

/** A nonce's form (`n=`), the same for the header read and the header signed. */
const NONCE = "[A-Za-z0-9_-]{16,64}";
const NONCE_PATTERN = new RegExp(`^${NONCE}$`);
const HEADER_PATTERN = new RegExp(`^t=(\\d{1,12})(?:,n=(${NONCE}))?((?:,v[12]=[0-9a-f]{64}){1,2})$`);

/** What a bot signature covers besides its timestamp (and nonce). */
export interface BotRequest {
  method: string;
  /** path and query string, as sent (`/v1/bot/verifications`) */
  path: string;
  rawBody: string;
}

type Scheme = "v1" | "v2";

function signedText(scheme: Scheme, request: BotRequest, timestamp: number, nonce: string | undefined): string {
  if (scheme === "v1") return `${timestamp}.${request.rawBody}`;
  const endpoint = `${request.method.toUpperCase()}.${request.path}.${request.rawBody}`;
  return nonce === undefined ? `${timestamp}.${endpoint}` : `${timestamp}.${nonce}.${endpoint}`;
}

/** A fresh nonce for `n=`: 18 random bytes, base64url (24 characters). */
export function freshBotNonce(): string {
  return base64UrlEncode(crypto.getRandomValues(new Uint8Array(18)));
}

export interface SignOptions {
  /** Sign with this nonce (`t=…,n=…,v2=…`); only v2 can carry one. */
  nonce?: string;
  /** Which signatures to send: without a nonce v1 and v2 by default, with one v2. */
  schemes?: Scheme[];
}

/**
 * The `X-Bot-Auth` header for a request. A bot sends a fresh nonce per request
 * (`{ nonce: freshBotNonce() }`), so two requests with one body in one second both go through;
 * without a nonce it sends both schemes, so the endpoint is bound (v2) and the contract's check (v1) holds.
 */
export async function signBotRequest(secret: string, request: BotRequest, timestamp: number, options: Scheme[] | SignOptions = {}): Promise<string> {
  const { nonce, schemes = nonce === undefined ? ["v1", "v2"] : ["v2"] } = Array.isArray(options) ? { schemes: options } : options;
  if (nonce !== undefined && (!NONCE_PATTERN.test(nonce) || schemes.includes("v1"))) {
    throw new Error("A bot nonce is 16-64 characters of [A-Za-z0-9_-] and travels with v2 only.");
  }
  const parts = await Promise.all(schemes.map(async (scheme) => `${scheme}=${toHex(await hmacSha256(secret, signedText(scheme, request, timestamp, nonce)))}`));
  return [`t=${timestamp}`, ...(nonce === undefined ? [] : [`n=${nonce}`]), ...parts].join(",");
}

export type BotCheck = { ok: true } | { ok: false; reason: "malformed" | "nonce_with_v1" | "stale" | "signature" | "replay" | "unconfigured" };

/**
 * Checks a bot request: header shape, timestamp tolerance, signature (WebCrypto's constant-time
 * verify), then claims the signature in `bot_nonces` so the same request cannot be played twice.
 * Only verified signatures are recorded, so forgeries cannot fill the table.
 */
export async function verifyBotRequest(
  db: Db,
  secret: string | undefined,
  header: string,
  request: BotRequest,
  now = Date.now(),
): Promise<BotCheck> {
  if (!secret) return { ok: false, reason: "unconfigured" };
  const match = HEADER_PATTERN.exec(header.trim());
  if (!match) return { ok: false, reason: "malformed" };
  const timestamp = Number(match[1]);
  const nonce = match[2];
  const signatures = match[3]!
    .slice(1)
    .split(",")
    .map((part) => ({ scheme: part.slice(0, 2) as Scheme, hex: part.slice(3) }));
  if (signatures.length === 2 && signatures[0]!.scheme === signatures[1]!.scheme) return { ok: false, reason: "malformed" };
  if (nonce !== undefined && signatures.some(({ scheme }) => scheme === "v1")) return { ok: false, reason: "nonce_with_v1" };
  if (Math.abs(now / 1000 - timestamp) > BOT_TOLERANCE_SECONDS) return { ok: false, reason: "stale" };
  for (const { scheme, hex } of signatures) {
    const bytes = Uint8Array.from(hex.match(/../g)!, (h) => parseInt(h, 16));
    if (!(await hmacVerify(secret, signedText(scheme, request, timestamp, nonce), bytes))) return { ok: false, reason: "signature" };
  }
  // Each signature is claimed: the same v1 or v2 cannot come back, alone or in other company. A v2
  // with a nonce differs from every other request's, so only a replay of it collides.
  const expiresAt = (timestamp + BOT_TOLERANCE_SECONDS) * 1000;
  const [, ...claims] = await db.batch([
    db.delete(botNonces).where(lt(botNonces.expiresAt, now)),
    ...signatures.map(({ hex }) => db.insert(botNonces).values({ signature: hex, expiresAt }).onConflictDoNothing({ target: botNonces.signature })),
  ]);
  if (claims.some((claim) => claim.meta.changes !== 1)) return { ok: false, reason: "replay" };
  return { ok: true };
}
