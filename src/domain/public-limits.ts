import ipaddr from "ipaddr.js";
import { enforceRateLimit } from "../durable-objects/rate-limiter-client";

/*
 * Rate limits of the unauthenticated doors, counted in RateLimiterObject (one object per key, fixed
 * windows, 429 `too_many_requests` with Retry-After). Each is set well above what a real person
 * does: a capture flow has at most 20 captures, each one upload-url + capture plus a few progress
 * reports, about 150 writes end to end. Keys are per client address (an IPv6 client by its /64,
 * which one subscriber usually holds whole) and, for capture-flow writes, per verification too.
 * The trial start (1000/h per client) and magic links per address (5 / 15 min) live with their flows.
 */

export interface RateLimitRule {
  name: string;
  limit: number;
  windowMs: number;
  message: string;
}

const MINUTE = 60_000;

export const PUBLIC_LIMITS = {
  /** `GET /l/{org}/{slug}`: each start creates a verification (webhooks, emails) in the link's tenant. */
  linkStart: { name: "link-start", limit: 30, windowMs: 10 * MINUTE, message: "Too many verifications started from this network; try again later." },
  /** `GET /v1/verify/{token}`: the capture page reads it on load and after a refusal. */
  captureRead: { name: "capture-read", limit: 300, windowMs: 10 * MINUTE, message: "Too many requests from this network; try again later." },
  /** upload-url, captures, answers, submit, progress from one client, over all verifications. */
  captureWrite: { name: "capture-write", limit: 600, windowMs: 10 * MINUTE, message: "Too many requests from this network; try again later." },
  /** The same writes into one verification, from anywhere. */
  captureWritePerVerification: {
    name: "capture-write-vfy",
    limit: 300,
    windowMs: 10 * MINUTE,
    message: "Too many requests for this verification; try again later.",
  },
  /** `POST /v1/auth/magic-link` from one client, whatever the address (the per-address limit is separate). */
  magicLinkClient: { name: "magic-link-client", limit: 20, windowMs: 60 * MINUTE, message: "Too many sign-in links requested from this network; try again later." },
} as const satisfies Record<string, RateLimitRule>;

/**
 * The rate-limit identity of a client: its `CF-Connecting-IP` (set by Cloudflare on every request),
 * an IPv6 address reduced to its /64, an IPv4-mapped one to the IPv4 address. Without the header
 * (local development) every request shares one key.
 */
export function clientKey(connectingIp: string | undefined): string {
  if (!connectingIp || !ipaddr.isValid(connectingIp)) return "unknown";
  const ip = ipaddr.parse(connectingIp);
  if (ip.kind() === "ipv4") return ip.toString();
  const v6 = ip as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const prefix = new ipaddr.IPv6([...v6.parts.slice(0, 4), 0, 0, 0, 0]);
  return `${prefix.toString()}/64`;
}

export function limitKey(rule: RateLimitRule, subject: string): string {
  return `${rule.name}:${subject}`;
}

/** Counts one request against `rule` for `subject` (a client key or a verification id); 429 beyond it. */
export async function enforceLimit(env: Env, rule: RateLimitRule, subject: string): Promise<void> {
  await enforceRateLimit(env, limitKey(rule, subject), rule.limit, rule.windowMs, rule.message);
}
