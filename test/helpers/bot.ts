import { env } from "cloudflare:workers";
import { signBotRequest } from "../../src/auth/bot";
import { callJson } from "./api";

/**
 * The `X-Bot-Auth` header of a POST of `rawBody` to `path`, signed as the bot does (v1 and v2 without
 * a nonce, v2 with one, unless `schemes` says).
 */
export function botSignature(
  path: string,
  rawBody: string,
  options: { secret?: string; timestamp?: number; method?: string; schemes?: ("v1" | "v2")[]; nonce?: string } = {},
): Promise<string> {
  return signBotRequest(options.secret ?? env.BOT_SECRET!, { method: options.method ?? "POST", path, rawBody }, options.timestamp ?? Math.floor(Date.now() / 1000), {
    nonce: options.nonce,
    schemes: options.schemes,
  });
}

/** Calls a bot endpoint with a correctly signed `X-Bot-Auth` (override any part to test refusals). */
export async function botCall(
  path: string,
  body: unknown,
  options: { secret?: string; timestamp?: number; nonce?: string; header?: string; headers?: Record<string, string> } = {},
) {
  const raw = JSON.stringify(body);
  const header = options.header ?? (await botSignature(path, raw, options));
  return callJson(path, { rawBody: raw, headers: { "Content-Type": "application/json", "X-Bot-Auth": header, ...options.headers } });
}
