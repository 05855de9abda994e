import { and, asc, eq, isNotNull, isNull, lte, or } from "drizzle-orm";
import type { Db } from "../../db/client";
import { domainClaims, tenants } from "../../db/schema";
import { toStatement } from "../../db/statements";
import { eachLimited } from "../../lib/concurrency";
import { randomBase62 } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { log } from "../../lib/log";
import { iso } from "../../lib/time";
import { hostResolver, type TxtResolver } from "../../providers/dns";
import { auditInsertWhile, type AuditEntry } from "../audit/log";
import { enforceLimit, type RateLimitRule } from "../public-limits";

/*
 * A tenant proves it controls a domain by publishing a DNS TXT record, so that certificates and
 * emails can name it by that domain instead of the display name it typed (anyone can call
 * themselves "Allianz SE"; only Allianz can publish a record under allianz.com). The flow:
 *  - claim: the record to publish, `_verification-service.<domain> TXT "verification-service-domain=<token>"`,
 *    with 256 bits of fresh CSPRNG randomness per claim (one pending claim per tenant, 7 days);
 *  - check: the record is looked up over DNS over HTTPS (the resolver of the webhook URL guard); found,
 *    the domain becomes the tenant's `verified_domain` (replacing any earlier one) and the claim goes;
 *  - re-check: the minutely cron looks again at each verified domain every 6 hours; a record gone
 *    drops the domain at once, a resolver failing for 3 days running drops it too (fail closed).
 * Claims, verifications, removals and drops are in the audit log (`domain.*`), each in the batch of
 * its change and only if that change happened.
 */

export const DOMAIN_RECORD_PREFIX = "_verification-service";
export const DOMAIN_VALUE_PREFIX = "verification-service-domain=";
export const DOMAIN_CLAIM_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** How often a verified domain's record is looked at again. */
export const DOMAIN_RECHECK_INTERVAL_MS = 6 * 60 * 60 * 1000;
/** How long a domain stays verified while the resolver cannot be asked: then it is dropped. */
export const DOMAIN_RECHECK_GRACE_MS = 3 * 24 * 60 * 60 * 1000;
/** Verified domains re-checked per cron run (each is one DNS query; the rest wait a minute). */
export const DOMAIN_RECHECK_BATCH = 25;
const RECHECK_CONCURRENCY = 5;
const MINUTE = 60_000;

/** Claims make a token and a row; checks ask the resolver: both rationed per tenant. */
export const DOMAIN_LIMITS = {
  claims: { name: "domain-claims", limit: 10, windowMs: 60 * MINUTE, message: "Too many domain claims from this tenant this hour; try again later." },
  checks: { name: "domain-checks", limit: 30, windowMs: 10 * MINUTE, message: "Too many domain checks from this tenant; DNS changes take minutes to appear, try again later." },
} as const satisfies Record<string, RateLimitRule>;

export function domainRecordName(domain: string): string {
  return `${DOMAIN_RECORD_PREFIX}.${domain}`;
}

export function domainRecordValue(token: string): string {
  return `${DOMAIN_VALUE_PREFIX}${token}`;
}

/** The form a domain is stored and compared in: lowercase, without the root's trailing dot. */
export function normalizeDomain(raw: string): string {
  return raw.trim().toLowerCase().replace(/\.$/, "");
}

export type DomainClaimRow = typeof domainClaims.$inferSelect;

export interface DomainState {
  verified: { domain: string; verifiedAt: number; confirmedAt: number } | null;
  /** The pending claim, while it has not expired. */
  claim: DomainClaimRow | null;
}

export async function readDomainState(db: Db, tenantId: string, now = Date.now()): Promise<DomainState> {
  const [tenant, claim] = await db.batch([
    db
      .select({ domain: tenants.verifiedDomain, verifiedAt: tenants.verifiedDomainAt, confirmedAt: tenants.verifiedDomainConfirmedAt })
      .from(tenants)
      .where(eq(tenants.id, tenantId)),
    db.select().from(domainClaims).where(eq(domainClaims.tenantId, tenantId)),
  ]);
  const t = tenant[0];
  if (!t) throw ApiError.notFound("tenant");
  const c = claim[0];
  return {
    verified: t.domain !== null ? { domain: t.domain, verifiedAt: t.verifiedAt ?? 0, confirmedAt: t.confirmedAt ?? 0 } : null,
    claim: c && c.expiresAt > now ? c : null,
  };
}

/** The wire shape (`TenantDomain`): what is verified, and the record a pending claim asks for. */
export function presentDomainState(state: DomainState) {
  return {
    ...(state.verified
      ? { verified_domain: { domain: state.verified.domain, verified_at: iso(state.verified.verifiedAt), confirmed_at: iso(state.verified.confirmedAt) } }
      : {}),
    ...(state.claim
      ? {
          claim: {
            domain: state.claim.domain,
            record: { name: domainRecordName(state.claim.domain), type: "TXT" as const, value: domainRecordValue(state.claim.token) },
            created_at: iso(state.claim.createdAt),
            expires_at: iso(state.claim.expiresAt),
          },
        }
      : {}),
  };
}

/**
 * Starts (or restarts) the tenant's claim of `domain`: a new token, so a record published for an
 * earlier claim proves nothing. The verified domain, if any, stays until this one is proved.
 */
export async function startDomainClaim(
  env: Env,
  db: Db,
  input: { tenantId: string; domain: string; audit: (domain: string) => AuditEntry; now?: number },
): Promise<DomainState> {
  const now = input.now ?? Date.now();
  const domain = normalizeDomain(input.domain);
  await enforceLimit(env, DOMAIN_LIMITS.claims, input.tenantId);
  const row: DomainClaimRow = { tenantId: input.tenantId, domain, token: randomBase62(43), createdAt: now, expiresAt: now + DOMAIN_CLAIM_TTL_MS };
  const d1 = db.$client;
  await d1.batch([
    toStatement(
      d1,
      db
        .insert(domainClaims)
        .values(row)
        .onConflictDoUpdate({ target: domainClaims.tenantId, set: { domain: row.domain, token: row.token, createdAt: row.createdAt, expiresAt: row.expiresAt } }),
    ),
    auditInsertWhile(db, input.audit(domain), now, { sql: "EXISTS (SELECT 1 FROM domain_claims WHERE tenant_id = ? AND token = ?)", params: [row.tenantId, row.token] }),
  ]);
  return readDomainState(db, input.tenantId, now);
}

/**
 * Looks up the pending claim's record. Found with this claim's value: the domain is verified (the
 * claim is spent in the same batch, so a racing second check records nothing twice). 409 when there
 * is no claim, it expired, or the record does not hold the value; 503 when the resolver cannot be
 * asked (nothing verified: it fails closed).
 */
export async function checkDomainClaim(
  env: Env,
  db: Db,
  input: { tenantId: string; audit: (domain: string) => AuditEntry; resolver?: TxtResolver; now?: number },
): Promise<DomainState> {
  const now = input.now ?? Date.now();
  await enforceLimit(env, DOMAIN_LIMITS.checks, input.tenantId);
  const claim = await db.select().from(domainClaims).where(eq(domainClaims.tenantId, input.tenantId)).get();
  if (!claim) throw new ApiError("invalid_state", "There is no domain claim to check: start one (POST /v1/tenant/domain/claim) and publish its TXT record.");
  if (claim.expiresAt <= now) {
    await db.delete(domainClaims).where(and(eq(domainClaims.tenantId, claim.tenantId), eq(domainClaims.token, claim.token)));
    throw new ApiError("invalid_state", "This domain claim expired (claims last 7 days): start a new one and publish its TXT record.");
  }
  const name = domainRecordName(claim.domain);
  const value = domainRecordValue(claim.token);
  let records: string[];
  try {
    records = await (input.resolver ?? hostResolver(env)).txt(name);
  } catch (err) {
    log.warn({ msg: "domain check: the DNS resolver failed; nothing verified", tenant_id: claim.tenantId, domain: claim.domain, error: String(err) });
    throw new ApiError("storage_unavailable", `The DNS record of ${claim.domain} could not be looked up right now (resolver error); nothing was verified. Try again later.`, {
      headers: { "Retry-After": "30" },
    });
  }
  if (!records.includes(value)) {
    throw new ApiError(
      "invalid_state",
      `No TXT record at ${name} holds "${value}" yet. Publish it at your DNS provider (changes can take some minutes to appear), then check again.`,
    );
  }
  const d1 = db.$client;
  await d1.batch([
    auditInsertWhile(db, input.audit(claim.domain), now, { sql: "EXISTS (SELECT 1 FROM domain_claims WHERE tenant_id = ? AND token = ?)", params: [claim.tenantId, claim.token] }),
    d1
      .prepare(
        `UPDATE tenants SET verified_domain = ?, verified_domain_token = ?, verified_domain_at = ?, verified_domain_confirmed_at = ?, verified_domain_checked_at = ?
         WHERE id = ? AND EXISTS (SELECT 1 FROM domain_claims WHERE tenant_id = ? AND token = ?)`,
      )
      .bind(claim.domain, claim.token, now, now, now, claim.tenantId, claim.tenantId, claim.token),
    toStatement(d1, db.delete(domainClaims).where(and(eq(domainClaims.tenantId, claim.tenantId), eq(domainClaims.token, claim.token)))),
  ]);
  return readDomainState(db, input.tenantId, now);
}

/** Removes the verified domain and any pending claim; `domain.removed` is recorded only when a verified domain went. */
export async function removeDomain(db: Db, input: { tenantId: string; audit: (domain: string) => AuditEntry; now?: number }): Promise<DomainState> {
  const now = input.now ?? Date.now();
  const before = await readDomainState(db, input.tenantId, now);
  const d1 = db.$client;
  const statements: D1PreparedStatement[] = [];
  if (before.verified) {
    const still = { sql: "EXISTS (SELECT 1 FROM tenants WHERE id = ? AND verified_domain = ?)", params: [input.tenantId, before.verified.domain] };
    statements.push(auditInsertWhile(db, input.audit(before.verified.domain), now, still), dropStatement(d1, input.tenantId, before.verified.domain));
  }
  statements.push(toStatement(d1, db.delete(domainClaims).where(eq(domainClaims.tenantId, input.tenantId))));
  await d1.batch(statements);
  return readDomainState(db, input.tenantId, now);
}

function dropStatement(d1: D1Database, tenantId: string, domain: string, token?: string): D1PreparedStatement {
  return d1
    .prepare(
      `UPDATE tenants SET verified_domain = NULL, verified_domain_token = NULL, verified_domain_at = NULL, verified_domain_confirmed_at = NULL, verified_domain_checked_at = NULL
       WHERE id = ? AND verified_domain = ?${token ? " AND verified_domain_token = ?" : ""}`,
    )
    .bind(tenantId, domain, ...(token ? [token] : []));
}

export interface RecheckOutcome {
  confirmed: number;
  dropped: number;
  /** The resolver failed: kept for now (within the grace period) or dropped (beyond it, counted in `dropped`). */
  unresolved: number;
  errors: number;
}

const SERVICE_ACTOR = { type: "service" as const, id: "domain_recheck", label: null };

/**
 * The minutely cron's re-check: the verified domains not looked at for `DOMAIN_RECHECK_INTERVAL_MS`,
 * least recently checked first, `DOMAIN_RECHECK_BATCH` at a time. Each write is conditional on the
 * tenant still holding that domain with that token, so a removal or a new proof racing it wins.
 */
export async function recheckDomains(env: Env, db: Db, now = Date.now(), resolver: TxtResolver = hostResolver(env)): Promise<RecheckOutcome> {
  const due = await db
    .select({ id: tenants.id, domain: tenants.verifiedDomain, token: tenants.verifiedDomainToken, confirmedAt: tenants.verifiedDomainConfirmedAt })
    .from(tenants)
    .where(and(isNotNull(tenants.verifiedDomain), or(isNull(tenants.verifiedDomainCheckedAt), lte(tenants.verifiedDomainCheckedAt, now - DOMAIN_RECHECK_INTERVAL_MS))))
    .orderBy(asc(tenants.verifiedDomainCheckedAt))
    .limit(DOMAIN_RECHECK_BATCH);
  const outcome: RecheckOutcome = { confirmed: 0, dropped: 0, unresolved: 0, errors: 0 };
  const d1 = db.$client;
  const failures = await eachLimited(due, RECHECK_CONCURRENCY, async (t) => {
    const domain = t.domain!;
    const token = t.token ?? "";
    const held = { sql: "EXISTS (SELECT 1 FROM tenants WHERE id = ? AND verified_domain = ? AND verified_domain_token = ?)", params: [t.id, domain, token] };
    const drop = async (reason: "record_missing" | "unconfirmed") => {
      const entry: AuditEntry = {
        tenantId: t.id,
        action: "domain.dropped",
        actor: SERVICE_ACTOR,
        target: { type: "tenant", id: t.id, label: domain },
        details: { domain, reason },
        client: { ip: null, userAgent: null },
      };
      await d1.batch([auditInsertWhile(db, entry, now, held), dropStatement(d1, t.id, domain, token)]);
      outcome.dropped += 1;
      log.info({ msg: "verified domain dropped by the re-check", tenant_id: t.id, domain, reason });
    };
    let records: string[];
    try {
      records = await resolver.txt(domainRecordName(domain));
    } catch (err) {
      outcome.unresolved += 1;
      log.warn({ msg: "domain re-check: the DNS resolver failed", tenant_id: t.id, domain, error: String(err) });
      if (now - (t.confirmedAt ?? 0) > DOMAIN_RECHECK_GRACE_MS) return drop("unconfirmed");
      await d1
        .prepare("UPDATE tenants SET verified_domain_checked_at = ? WHERE id = ? AND verified_domain = ? AND verified_domain_token = ?")
        .bind(now, t.id, domain, token)
        .run();
      return;
    }
    if (!records.includes(domainRecordValue(token))) return drop("record_missing");
    await d1
      .prepare("UPDATE tenants SET verified_domain_confirmed_at = ?, verified_domain_checked_at = ? WHERE id = ? AND verified_domain = ? AND verified_domain_token = ?")
      .bind(now, now, t.id, domain, token)
      .run();
    outcome.confirmed += 1;
  });
  outcome.errors = failures.length;
  for (const f of failures) log.error({ msg: "domain re-check failed for a tenant; the next run tries again", tenant_id: f.item.id, error: String(f.error) });
  return outcome;
}
