import ipaddr from "ipaddr.js";
import { enforceRateLimit, rateLimiterObject, withConcurrencySlot } from "../durable-objects/rate-limiter-client";
import { ApiError } from "../lib/errors";
import { isolateTurn } from "../lib/isolate-turn";

/*
 * Rate limits of the unauthenticated doors, 429 `too_many_requests` with Retry-After beyond them.
 * Each is set well above what a real person does: a capture flow has at most 20 captures, each one
 * upload-url + capture plus a few progress reports, about 150 writes end to end. Keys are per client
 * address (an IPv6 client by its /64, which one subscriber usually holds whole; by its /48 on the
 * sign-in link door, which mails whatever address it is given) and, for capture-flow
 * writes, per verification too. Three kinds of counter:
 *  - exact (`RateLimitRule`): a fixed window counted in RateLimiterObject, one Durable Object per key,
 *    global and exact, one Durable Object call per request. For doors whose requests cost something
 *    per request (a verification created, an email sent) or whose count the contract fixes: link
 *    starts, magic links; the trial start (1000/h per client) and magic links per address live with
 *    their flows.
 *  - per location (`LocationRateLimitRule`): Cloudflare's Rate Limiting binding, counted per
 *    Cloudflare location in 60 s windows, cached on the machine and synchronised asynchronously
 *    ("permissive, eventually consistent"), with no round trip on the request. For the capture
 *    flow's doors per client, which every capture passes: a flood from one client is still cut
 *    within a minute at each location it reaches, which is what these limits are for; the exact
 *    counts are not (docs/operations.md "Rate limits").
 *  - in the verification's own Durable Object (model/verification/write-window.ts): the
 *    capture-flow writes into one verification. Every such write is a call to that object anyway
 *    (it is their single writer), and there is one object per verification, so it counts exactly
 *    and globally in memory, with no call of its own.
 */

export interface RateLimitRule {
  name: string;
  limit: number;
  windowMs: number;
  message: string;
}

/** The Rate Limiting bindings (wrangler.toml `[[ratelimits]]`, one namespace each). */
export type RateLimiterBinding = "CAPTURE_READ_LIMITER" | "CAPTURE_WRITE_LIMITER" | "CERTIFICATE_READ_LIMITER" | "PUBLISHABLE_CREATE_LIMITER" | "BACKEND_CREATE_LIMITER";

export interface LocationRateLimitRule {
  binding: RateLimiterBinding;
  /** requests per `periodSeconds` per location: wrangler.toml holds the value the platform applies */
  limit: number;
  periodSeconds: 10 | 60;
  message: string;
}

const MINUTE = 60_000;

export const PUBLIC_LIMITS = {
  /** `GET /l/{org}/{slug}`: each start creates a verification (webhooks, emails) in the link's tenant. */
  linkStart: { name: "link-start", limit: 30, windowMs: 10 * MINUTE, message: "Too many verifications started from this network; try again later." },
  /** `POST /v1/auth/magic-link` from one client (an IPv6 one by its /48), whatever the address (the per-address limits are separate). */
  magicLinkClient: { name: "magic-link-client", limit: 20, windowMs: 60 * MINUTE, message: "Too many sign-in links requested from this network; try again later." },
  /** `GET`/`POST /v1/auth/invitation/{token}` (the invitation's page and its button) from one client. */
  invitationClient: { name: "invitation-client", limit: 30, windowMs: 10 * MINUTE, message: "Too many invitation requests from this network; try again later." },
  /** `GET`/`POST /v1/auth/magic-link/{token}` (the link's page and its button) from one client: each reads D1. */
  magicLinkPage: { name: "magic-link-page", limit: 60, windowMs: 10 * MINUTE, message: "Too many sign-in link requests from this network; try again later." },
  /** `GET /v1/auth/{provider}/login` and `/callback` from one client: each may call the identity provider. */
  signInFlowClient: { name: "sign-in-flow-client", limit: 60, windowMs: 10 * MINUTE, message: "Too many sign-in attempts from this network; try again later." },
  /** `POST /v1/auth/otp/verify` from one client, whatever the code (each code also locks after 5 wrong attempts). */
  otpVerifyClient: { name: "otp-verify-client", limit: 60, windowMs: 10 * MINUTE, message: "Too many sign-in codes tried from this network; try again later." },
  /** `GET /v1/evidence/{token}`: signed evidence URLs need no other credential. */
  evidenceDownload: { name: "evidence", limit: 1200, windowMs: MINUTE, message: "Too many evidence downloads from this network; try again shortly." },
} as const satisfies Record<string, RateLimitRule>;

const DAY = 24 * 60 * MINUTE;

/**
 * Invitation emails a tenant's admins may send (new and resent), and resends of one invitation:
 * an admin's session cannot turn the service into a mail cannon. Anyone can sign up and invite any
 * address, so a tenant less than a day old gets a much smaller daily allowance (counted per UTC day
 * like the other daily cap: within its first 24 hours it may straddle two).
 */
export const INVITATION_EMAIL_LIMITS = {
  newTenantDaily: {
    name: "invitation-emails-new-tenant",
    limit: 20,
    windowMs: DAY,
    message: "This tenant is less than a day old and has sent its 20 invitation emails for today (UTC); try again tomorrow.",
  },
  perTenantDaily: { name: "invitation-emails-daily", limit: 250, windowMs: DAY, message: "This tenant has sent its 250 invitation emails per day (UTC); try again tomorrow." },
  perTenant: { name: "invitation-emails", limit: 100, windowMs: 60 * MINUTE, message: "Too many invitation emails from this tenant this hour; try again later." },
  /** Resends: with the first send, at most 5 emails of one invitation an hour. */
  perInvitation: { name: "invitation-resends", limit: 4, windowMs: 60 * MINUTE, message: "This invitation was sent 5 times this hour (the first and 4 resends); try again later." },
} as const satisfies Record<string, RateLimitRule>;

/**
 * Emails to one address, whoever asks and from wherever: a sign-in link or an invitation must not
 * become a way to flood someone's inbox (and the sender's reputation, on which every tenant's mail
 * depends) from many networks or many tenants. Sign-in links and invitations count apart, so that
 * an invitation refused for its address tells a tenant nothing of who asked to sign in with it.
 * At most 10 an hour and 20 a day (UTC) of each kind (twice what one client network may ask for
 * one address in 15 minutes, so one stranger's network alone never spends the owner's hour). Reaching the sign-in cap changes nothing in
 * the answer (the link is simply not sent: the request still answers 200 `{sent: true}`, as it
 * does for every address), so a stranger learns nothing from it; the cost is that a stranger can
 * keep an address's owner from getting sign-in emails until the window ends (their other ways of
 * signing in stay open).
 */
export const ADDRESS_EMAIL_LIMITS = {
  signInHourly: { name: "sign-in-emails-address-hourly", limit: 10, windowMs: 60 * MINUTE, message: "" },
  signInDaily: { name: "sign-in-emails-address-daily", limit: 20, windowMs: DAY, message: "" },
  invitationHourly: {
    name: "invitation-emails-address-hourly",
    limit: 10,
    windowMs: 60 * MINUTE,
    message: "This address has been sent 10 invitation emails in this hour (by any tenant); try again later.",
  },
  invitationDaily: {
    name: "invitation-emails-address-daily",
    limit: 20,
    windowMs: DAY,
    message: "This address has been sent 20 invitation emails today (UTC, by any tenant); try again tomorrow.",
  },
} as const satisfies Record<string, RateLimitRule>;

/**
 * `GET /v1/verifications/{id}/report.pdf`: a report reads every thumbnail and draws and compresses a
 * PDF (tens of milliseconds of CPU, a few MB of memory for 20 photos), where other reads cost a query.
 * Per tenant, far above an adjuster filing reports by hand and a back-end archiving each case once.
 */
export const REPORT_LIMITS = {
  perTenant: { name: "report", limit: 60, windowMs: MINUTE, message: "This tenant asked for 60 evidence reports in the last minute; try again shortly." },
} as const satisfies Record<string, RateLimitRule>;

/**
 * Report renders in flight. A render at the worst case the input limits allow holds about 32 MB of
 * live heap (its thumbnails, pdf-lib's objects, the PDF it builds), an isolate 22 MB before it, and a
 * Worker has 128 MB: three at once in one isolate reached 112 MB (bench/PERF-RESULTS.md, "Evidence
 * report at the worst case"). So one isolate renders one report at a time (rendering is CPU-bound:
 * taking turns costs no throughput) with at most `queuedPerIsolate` waiting, and one tenant has at
 * most `limit` in flight across every isolate (one counter object per tenant; a slot lapses
 * after `leaseMs` if its isolate died), so its burst cannot hold every isolate's turn. The isolate's
 * turn lapses after `turnLeaseMs` if its request died (lib/isolate-turn.ts); a worst-case render
 * takes well under a second of CPU (bench/PERF-RESULTS.md).
 */
export const REPORT_RENDERS = {
  limit: 3,
  leaseMs: 2 * MINUTE,
  message: "This tenant has 3 evidence reports rendering; try again in a second.",
  queuedPerIsolate: 4,
  turnLeaseMs: 30_000,
  busyMessage: "Too many evidence reports are rendering; try again in a second.",
} as const;

const renderTurn = isolateTurn({
  queued: REPORT_RENDERS.queuedPerIsolate,
  leaseMs: REPORT_RENDERS.turnLeaseMs,
  pollMs: 20,
  busy: () => new ApiError("too_many_requests", REPORT_RENDERS.busyMessage, { headers: { "Retry-After": "1" } }),
});

/**
 * Runs one report render of `tenantId` in one of its `REPORT_RENDERS` slots and its isolate's turn
 * (429 with `Retry-After: 1` while the tenant's slots are held or the isolate's queue is full).
 */
export function withReportRenderSlot<T>(env: Env, tenantId: string, render: () => Promise<T>): Promise<T> {
  return withConcurrencySlot(env, `report-render:${tenantId}`, REPORT_RENDERS, () => renderTurn.run(render));
}

/**
 * Content Credentials signings in flight (domain/credentials/serve.ts): one at the 25 MB bound holds
 * the image twice, 72 MB of live heap with the isolate's own 24 MB, and two at once would reach a
 * Worker's 128 MB (bench/PERF-RESULTS.md, "Content Credentials signing at the 25 MB bound"). So one
 * isolate signs one copy at a time (signing is CPU-bound: taking turns costs no throughput) with at
 * most `queuedPerIsolate` waiting; a waiting request holds no image (it reads it when its turn comes).
 * A turn lapses after `leaseMs` (a signing at the bound takes about a second) if its request died.
 * No per-tenant slot across isolates, unlike REPORT_RENDERS: a report renders anew on every request,
 * a copy is signed once (per capture, signer and facts) and every later download is served from R2
 * without a turn, so one tenant's signings are bounded by the captures it received, each of which
 * already cost an analysis; a counter object's round trips would buy no bound the turn lacks.
 */
export const CREDENTIALS_SIGNINGS = {
  queuedPerIsolate: 4,
  leaseMs: 30_000,
  busyMessage: "Too many Content Credentials copies are being signed; try again in a second.",
} as const;

const signingTurn = isolateTurn({
  queued: CREDENTIALS_SIGNINGS.queuedPerIsolate,
  leaseMs: CREDENTIALS_SIGNINGS.leaseMs,
  pollMs: 20,
  busy: () => new ApiError("too_many_requests", CREDENTIALS_SIGNINGS.busyMessage, { headers: { "Retry-After": "1" } }),
});

/** Runs one Content Credentials signing in its isolate's turn (429 with `Retry-After: 1` while its queue is full). */
export function withCredentialsSigningTurn<T>(sign: () => Promise<T>): Promise<T> {
  return signingTurn.run(sign);
}

/** Signings of this isolate: the one holding the turn (0 or 1) and those waiting for it. */
export function credentialsSigningTurns(): { signing: number; waiting: number } {
  const { running, waiting } = signingTurn.counts();
  return { signing: running, waiting };
}

/** The capture flow's doors, per location (see the top of this file). */
export const CAPTURE_FLOW_LIMITS = {
  /** `GET /v1/verify/{token}`: the capture page reads it on load and after a refusal. */
  captureRead: { binding: "CAPTURE_READ_LIMITER", limit: 60, periodSeconds: 60, message: "Too many requests from this network; try again later." },
  /** upload-url, burst-nonce, the upload PUT, captures, answers, submit, progress from one client (one address may be a whole office's NAT), over all verifications. */
  captureWrite: { binding: "CAPTURE_WRITE_LIMITER", limit: 300, periodSeconds: 60, message: "Too many requests from this network; try again later." },
} as const satisfies Record<string, LocationRateLimitRule>;

/**
 * `GET /v1/certificates/{token}` (JSON and the page): a certificate link is handed to third parties
 * and opened from anywhere. A read costs one D1 query; a page view is one request (the page carries
 * its certificate), so a person checking a certificate stays far below this.
 */
export const CERTIFICATE_LIMITS = {
  certificateRead: { binding: "CERTIFICATE_READ_LIMITER", limit: 60, periodSeconds: 60, message: "Too many requests from this network; try again later." },
} as const satisfies Record<string, LocationRateLimitRule>;

/**
 * `POST /v1/verifications` with a publishable key, per tenant: the key ships inside apps, so anyone
 * may create with it, and each creation costs the tenant (and the service) a verification, its
 * object's expiry and its events. A full key is the tenant's own server's credential and is not
 * limited here (docs/operations.md, "Rate limits").
 */
export const CREATE_LIMITS = {
  publishableCreate: {
    binding: "PUBLISHABLE_CREATE_LIMITER",
    limit: 60,
    periodSeconds: 60,
    message: "This tenant's publishable key created 60 verifications in the last minute; try again shortly.",
  },
  /**
   * Full keys (the tenant's own server): a ceiling far above any real integration's pace (100 a second,
   * sustained), so a runaway loop is cut within a minute; the expiry sweep also takes each tenant's
   * share in turn (domain/verification/sweep.ts), so even at this ceiling one tenant cannot hold back
   * another's expiries.
   */
  backendCreate: {
    binding: "BACKEND_CREATE_LIMITER",
    limit: 6000,
    periodSeconds: 60,
    message: "This tenant created 6000 verifications in the last minute; try again shortly.",
  },
} as const satisfies Record<string, LocationRateLimitRule>;

/** Every per-location rule: wrangler.toml must bind each (npm run build:check). */
export const LOCATION_LIMITS = { ...CAPTURE_FLOW_LIMITS, ...CERTIFICATE_LIMITS, ...CREATE_LIMITS } as const satisfies Record<string, LocationRateLimitRule>;

/**
 * The rate-limit identity of a client: its `CF-Connecting-IP` (set by Cloudflare on every request),
 * an IPv6 address reduced to its /64 (or, with `ipv6Prefix` 48, to its /48: the doors that send mail
 * to an address someone names, where a /48 is what one site is commonly given and a sprayer holding
 * it could otherwise act as 65,536 clients), an IPv4-mapped one to the IPv4 address. Without the
 * header (local development) every request shares one key.
 */
export function clientKey(connectingIp: string | undefined, ipv6Prefix: 48 | 64 = 64): string {
  if (!connectingIp || !ipaddr.isValid(connectingIp)) return "unknown";
  const ip = ipaddr.parse(connectingIp);
  if (ip.kind() === "ipv4") return ip.toString();
  const v6 = ip as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const kept = ipv6Prefix / 16;
  const prefix = new ipaddr.IPv6([...v6.parts.slice(0, kept), ...new Array<number>(8 - kept).fill(0)]);
  return `${prefix.toString()}/${ipv6Prefix}`;
}

export function limitKey(rule: RateLimitRule, subject: string): string {
  return `${rule.name}:${subject}`;
}

/**
 * Counts one unit against each of `rules` for `subject`, in order, stopping at the first that is
 * spent; true when every one had room. Never refuses: for the caps whose being reached must not
 * show in the answer (emails to one address, ADDRESS_EMAIL_LIMITS). Put the shortest window first:
 * the last rule then counts exactly what got through all of them.
 */
export async function withinLimits(env: Env, rules: readonly RateLimitRule[], subject: string): Promise<boolean> {
  for (const rule of rules) {
    if (!(await rateLimiterObject(env, limitKey(rule, subject)).hit(rule.limit, rule.windowMs)).allowed) return false;
  }
  return true;
}

/** Counts one request against `rule` for `subject` (a client key or a verification id); 429 beyond it. */
export async function enforceLimit(env: Env, rule: RateLimitRule | LocationRateLimitRule, subject: string): Promise<void> {
  if (!("binding" in rule)) {
    await enforceRateLimit(env, limitKey(rule, subject), rule.limit, rule.windowMs, rule.message);
    return;
  }
  const { success } = await env[rule.binding].limit({ key: subject });
  // The binding does not say when its window ends: a whole period is the most a client waits.
  if (!success) throw new ApiError("too_many_requests", rule.message, { headers: { "Retry-After": String(rule.periodSeconds) } });
}
