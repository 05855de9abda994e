import { lt } from "drizzle-orm";
import type { Db } from "../db/client";
import { botNonces } from "../db/schema";
import { hmacSha256, hmacVerify, toHex } from "../lib/crypto";

/**
 * The messaging bot signs each request with `X-Bot-Auth: t=<unix seconds>,v1=<sig>,v2=<sig>`:
 * - `v1` = hex HMAC-SHA256(secret, "<t>.<raw body>"): CONTRACT.md's scheme, accepted alone;
 * - `v2` = hex HMAC-SHA256(secret, "<t>.<METHOD>.<path>.<raw body>"), the path with its query
 *   string as sent (`/v1/bot/otp`): it also binds the endpoint, so a request signed for one
 *   endpoint cannot be played against another that takes the same body.
 * Every signature the header carries must verify (a v2 for another endpoint is refused even beside
 * a good v1), so a bot that sends v2 gets the endpoint binding. A signature is accepted within ±300 s
 * of its timestamp and only once (replays are refused).
 */
export const BOT_AUTH_HEADER = "X-Bot-Auth";
export const BOT_TOLERANCE_SECONDS = 300;

const HEADER_PATTERN = /^t=(\d{1,12})((?:,v[12]=[0-9a-f]{64}){1,2})$/;

/** What a bot signature covers besides its timestamp. */
export interface BotRequest {
  method: string;
  /** path and query string, as sent (`/v1/bot/verifications`) */
  path: string;
  rawBody: string;
}

type Scheme = "v1" | "v2";

function signedText(scheme: Scheme, request: BotRequest, timestamp: number): string {
  return scheme === "v1" ? `${timestamp}.${request.rawBody}` : `${timestamp}.${request.method.toUpperCase()}.${request.path}.${request.rawBody}`;
}

/** The header the bot sends: both schemes, so the endpoint is bound (v2) and the contract's check (v1) holds. */
export async function signBotRequest(secret: string, request: BotRequest, timestamp: number, schemes: Scheme[] = ["v1", "v2"]): Promise<string> {
  const parts = await Promise.all(schemes.map(async (scheme) => `${scheme}=${toHex(await hmacSha256(secret, signedText(scheme, request, timestamp)))}`));
  return [`t=${timestamp}`, ...parts].join(",");
}

export type BotCheck = { ok: true } | { ok: false; reason: "malformed" | "stale" | "signature" | "replay" | "unconfigured" };

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
  const signatures = match[2]!
    .slice(1)
    .split(",")
    .map((part) => ({ scheme: part.slice(0, 2) as Scheme, hex: part.slice(3) }));
  if (signatures.length === 2 && signatures[0]!.scheme === signatures[1]!.scheme) return { ok: false, reason: "malformed" };
  if (Math.abs(now / 1000 - timestamp) > BOT_TOLERANCE_SECONDS) return { ok: false, reason: "stale" };
  for (const { scheme, hex } of signatures) {
    const bytes = Uint8Array.from(hex.match(/../g)!, (h) => parseInt(h, 16));
    if (!(await hmacVerify(secret, signedText(scheme, request, timestamp), bytes))) return { ok: false, reason: "signature" };
  }
  // Each signature is claimed: the same v1 or v2 cannot come back, alone or in other company.
  const expiresAt = (timestamp + BOT_TOLERANCE_SECONDS) * 1000;
  const [, ...claims] = await db.batch([
    db.delete(botNonces).where(lt(botNonces.expiresAt, now)),
    ...signatures.map(({ hex }) => db.insert(botNonces).values({ signature: hex, expiresAt }).onConflictDoNothing({ target: botNonces.signature })),
  ]);
  if (claims.some((claim) => claim.meta.changes !== 1)) return { ok: false, reason: "replay" };
  return { ok: true };
}
