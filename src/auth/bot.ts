import { lt } from "drizzle-orm";
import type { Db } from "../db/client";
import { botNonces } from "../db/schema";
import { hmacSha256, hmacVerify, toHex } from "../lib/crypto";

/**
 * The messaging bot signs each request:
 * `X-Bot-Auth: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<METHOD>.<path>.<raw body>")>`, the
 * path with its query string as sent (`/v1/bot/otp`). Method and path are signed so a request signed
 * for one endpoint cannot be played against another that takes the same body. A signature is
 * accepted within ±300 s of its timestamp and only once (replays are refused).
 */
export const BOT_AUTH_HEADER = "X-Bot-Auth";
export const BOT_TOLERANCE_SECONDS = 300;

const HEADER_PATTERN = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/;

/** What a bot signature covers besides its timestamp. */
export interface BotRequest {
  method: string;
  /** path and query string, as sent (`/v1/bot/verifications`) */
  path: string;
  rawBody: string;
}

function signedText(request: BotRequest, timestamp: number): string {
  return `${timestamp}.${request.method.toUpperCase()}.${request.path}.${request.rawBody}`;
}

export async function signBotRequest(secret: string, request: BotRequest, timestamp: number): Promise<string> {
  return `t=${timestamp},v1=${toHex(await hmacSha256(secret, signedText(request, timestamp)))}`;
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
  const signature = match[2]!;
  if (Math.abs(now / 1000 - timestamp) > BOT_TOLERANCE_SECONDS) return { ok: false, reason: "stale" };
  const bytes = Uint8Array.from(signature.match(/../g)!, (h) => parseInt(h, 16));
  if (!(await hmacVerify(secret, signedText(request, timestamp), bytes))) return { ok: false, reason: "signature" };
  const [, claimed] = await db.batch([
    db.delete(botNonces).where(lt(botNonces.expiresAt, now)),
    db
      .insert(botNonces)
      .values({ signature, expiresAt: (timestamp + BOT_TOLERANCE_SECONDS) * 1000 })
      .onConflictDoNothing({ target: botNonces.signature }),
  ]);
  if (claimed.meta.changes !== 1) return { ok: false, reason: "replay" };
  return { ok: true };
}
