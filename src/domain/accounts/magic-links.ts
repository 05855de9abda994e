import { and, eq, gt, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { magicLinks } from "../../db/schema";
import { enforceRateLimit } from "../../durable-objects/rate-limiter-client";
import { settings } from "../../env";
import { randomBase62, sha256Hex } from "../../lib/crypto";
import { newId } from "../../lib/ids";
import { log } from "../../lib/log";
import { emailTransport } from "../../providers/email";
import { sendOnce } from "../../providers/outbound";
import { ADDRESS_EMAIL_LIMITS, limitKey, withinLimits } from "../public-limits";
import { mailboxOf, normalizeEmail } from "./users";

export const MAGIC_LINK_TTL_MS = 15 * 60 * 1000;
/**
 * Sign-in emails per address and client per window: enough for a typo or two, useless for
 * mail-bombing from one network (which is also held to 20 requests an hour whatever the address,
 * PUBLIC_LIMITS.magicLinkClient; an IPv6 network by its /48 on this door). Counted per client too,
 * so a stranger asking five times for someone's address does not lock its owner out for 15 minutes
 * with a 429; what every client together gets sent to one address is capped apart, silently
 * (SIGN_IN_ADDRESS_LIMITS).
 */
const REQUESTS_PER_WINDOW = 5;
const REQUEST_WINDOW_MS = 15 * 60 * 1000;

/** The counter of one address's sign-in emails asked for by one client (`clientKey`, an IPv6 one by its /48). */
export function magicLinkLimitKey(email: string, client = "unknown"): string {
  return `magic-link:${mailboxOf(email)}:${client}`;
}

/** The address's own caps, whoever asks (ADDRESS_EMAIL_LIMITS): the hour's first, then the day's. */
export const SIGN_IN_ADDRESS_LIMITS = [ADDRESS_EMAIL_LIMITS.signInHourly, ADDRESS_EMAIL_LIMITS.signInDaily] as const;

/** The counters of one mailbox's sign-in emails (`mailboxOf`: tags and Gmail dots count as one), over every client. */
export function signInAddressLimitKeys(email: string): string[] {
  return SIGN_IN_ADDRESS_LIMITS.map((rule) => limitKey(rule, mailboxOf(email)));
}

/** The credential in the link: `mlk_` + 256 bits (base62). Only its SHA-256 is stored. */
const TOKEN_PATTERN = /^mlk_[0-9A-Za-z]{43}$/;

export function magicLinkUrl(env: Env, token: string): string {
  return `${settings(env).baseUrl}/v1/auth/magic-link/${token}`;
}

export interface MagicLinkRequest {
  email: string;
  /** Who asks (`clientKey` of the request's address); "unknown" without one. */
  client?: string;
  /** Where spending the link lands: a path of this service, already checked by `safeReturnTo`. */
  returnTo?: string | null;
}

/**
 * Answers a sign-in link request: the per-(address, client) cap is the asker's 429; the rest (the
 * address's own caps, whoever asks: SIGN_IN_ADDRESS_LIMITS; storing a single-use 15-minute link;
 * sending it through the email provider) runs after the answer when `later` is given (the route's
 * `waitUntil`), so neither the answer nor its timing tells whether the address reached its cap or
 * the email went out. Without `later` it is awaited (a caller that reads the link next).
 */
export async function requestMagicLink(env: Env, db: Db, request: MagicLinkRequest, options: { now?: number; later?: (work: Promise<void>) => void } = {}): Promise<void> {
  const now = options.now ?? Date.now();
  const email = normalizeEmail(request.email);
  await enforceRateLimit(env, magicLinkLimitKey(email, request.client), REQUESTS_PER_WINDOW, REQUEST_WINDOW_MS, "Too many sign-in links requested for this address from this network; try again later.");
  const sending = sendMagicLink(env, db, email, request.returnTo ?? null, now);
  if (!options.later) return sending;
  options.later(sending.catch((err: unknown) => log.error({ msg: "sign-in link not sent", error: String(err) })));
}

/** Stores and sends the link, unless the address's caps were reached: then nothing is stored or sent (nor kept if the send fails). */
async function sendMagicLink(env: Env, db: Db, email: string, returnTo: string | null, now: number): Promise<void> {
  if (!(await withinLimits(env, SIGN_IN_ADDRESS_LIMITS, mailboxOf(email)))) return;
  const token = `mlk_${randomBase62(43)}`;
  const id = newId("magicLink", now);
  await db.insert(magicLinks).values({ id, email, tokenHash: await sha256Hex(token), returnTo, expiresAt: now + MAGIC_LINK_TTL_MS, usedAt: null, createdAt: now });
  const sending = sendOnce(
    db,
    emailTransport(env),
    {
      dedupeKey: `magic-link:${id}`,
      channel: "email",
      recipient: email,
      subject: "Your sign-in link",
      body: signInEmail(magicLinkUrl(env, token)),
      // Only local development keeps the live link at rest: its outbox is how a developer signs in.
      ...(settings(env).isLocal ? {} : { storedBody: signInEmail(REDACTED_LINK) }),
    },
    now,
  );
  // A link nobody was sent is not kept.
  await sending.catch(async (err: unknown) => {
    await db.delete(magicLinks).where(eq(magicLinks.id, id)).run();
    throw err;
  });
}

/** Stands in for the link in the stored copy of a sign-in email outside local development. */
export const REDACTED_LINK = "[sign-in link removed: it is sent to the recipient only]";

function signInEmail(link: string): string {
  return `Sign in to the verification dashboard:\n\n${link}\n\nThe link works once, within 15 minutes. If you did not ask for it, ignore this email.`;
}

/** The address a link was sent to while it can still be used (not spent, not expired), else null. Spends nothing. */
export async function peekMagicLink(db: Db, token: string, now = Date.now()): Promise<string | null> {
  if (!TOKEN_PATTERN.test(token)) return null;
  const row = await db
    .select({ email: magicLinks.email })
    .from(magicLinks)
    .where(and(eq(magicLinks.tokenHash, await sha256Hex(token)), isNull(magicLinks.usedAt), gt(magicLinks.expiresAt, now)))
    .get();
  return row?.email ?? null;
}

/**
 * Spends a link: one conditional UPDATE marks it used only if it is unused and unexpired, so two
 * concurrent clicks cannot both sign in. Returns the address it was sent to, or null.
 */
export async function consumeMagicLink(db: Db, token: string, now = Date.now()): Promise<string | null> {
  return (await spendMagicLink(db, token, now))?.email ?? null;
}

/** `consumeMagicLink`, also answering where the browser asked to land (null: the default). */
export async function spendMagicLink(db: Db, token: string, now = Date.now()): Promise<{ email: string; returnTo: string | null } | null> {
  if (!TOKEN_PATTERN.test(token)) return null;
  const spent = await db
    .update(magicLinks)
    .set({ usedAt: now })
    .where(and(eq(magicLinks.tokenHash, await sha256Hex(token)), isNull(magicLinks.usedAt), gt(magicLinks.expiresAt, now)))
    .returning({ email: magicLinks.email, returnTo: magicLinks.returnTo })
    .get();
  return spent ?? null;
}
