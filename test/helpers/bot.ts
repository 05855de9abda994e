import { env } from "cloudflare:workers";
import { signBotRequest } from "../../src/auth/bot";
import { callJson } from "./api";

/** Calls a bot endpoint with a correctly signed `X-Bot-Auth` (override any part to test refusals). */
export async function botCall(
  path: string,
  body: unknown,
  options: { secret?: string; timestamp?: number; header?: string; headers?: Record<string, string> } = {},
) {
  const raw = JSON.stringify(body);
  const header = options.header ?? (await signBotRequest(options.secret ?? env.BOT_SECRET!, raw, options.timestamp ?? Math.floor(Date.now() / 1000)));
  return callJson(path, { rawBody: raw, headers: { "Content-Type": "application/json", "X-Bot-Auth": header, ...options.headers } });
}
