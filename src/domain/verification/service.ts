import canonicalize from "canonicalize";
import { and, desc, eq, gte, inArray, isNotNull, isNull, lt, lte, not, or, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { answers, captures, events, idempotencyKeys, verifications, verificationSearchTerms } from "../../db/schema";
import { eventRow, isUniqueViolation, newVerificationRow, type EventRow, type VerificationRecord } from "../../db/verifications";
import { verificationObject } from "../../durable-objects/verification-client";
import { eventHints, queuePublisher, type EventHints } from "../../events/publisher";
import { log } from "../../lib/log";
import { settings } from "../../env";
import { signingKey } from "../../lib/signing-keys";
import { sha256Hex } from "../../lib/crypto";
import { issueCursor, readCursor } from "../../lib/page-cursor";
import { ApiError } from "../../lib/errors";
import { isId, newId } from "../../lib/ids";
import { presentVerification, type Audience } from "../../model/verification/present";
import { DEFAULT_EXPIRES_IN_SECONDS, type CreateVerificationInput } from "../../schemas/verification-create";
import { isTerminal, type VerificationStatus } from "../../model/verification/state";
import { STATUSES } from "../../schemas/verification";
import { normalizeConfig } from "../../model/verification/config";
import { DEFAULT_CHANNEL } from "../../analysis/capabilities";
import { assertAssessable } from "../capabilities";
import { reserveNotifyEmail } from "../notifications/email-quota";
import { armsAtCreation } from "./sweep";
import { assertWebhookUrlAllowed } from "../webhooks/url-guard";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Fields a publishable key may not set. Such a key ships inside apps, so anyone can hold it: these
 * fields send data or mail where the caller chooses (`webhook_url`, `notify_email`), or carry text
 * the tenant trusts as its own (`metadata`, `context`). A link template or a full key sets them.
 */
export const PUBLISHABLE_FORBIDDEN_FIELDS = ["webhook_url", "notify_email", "metadata", "context"] as const;

/** 403 `forbidden` naming every field a publishable key tried to set. */
export function assertPublishableMaySet(input: CreateVerificationInput): void {
  const refused = PUBLISHABLE_FORBIDDEN_FIELDS.filter((field) => input[field] !== undefined);
  if (refused.length === 0) return;
  const message = `A publishable key may not set ${refused.join(", ")}: use a link template or a full-scope key.`;
  throw new ApiError("forbidden", message);
}

/**
 * Whose creations share an `Idempotency-Key` namespace within a tenant. Its back-end (full keys,
 * dashboard sessions) has one; a publishable key (shipped inside apps: anyone may hold it) and the
 * messaging bot have one each. Without that, whoever extracts the publishable key could replay a
 * back-end's creation by guessing its key (`claim-<id>`, as docs/api.md suggests) and get its capture
 * link, pre-empt it with a verification of their own, or learn through 409 which keys were used.
 */
export type IdempotencyNamespace = "backend" | "publishable" | "bot";

/** The stored key: the back-end's as sent; the others after their namespace and a line feed, which no header value holds. */
function storedIdempotencyKey(key: string, namespace: IdempotencyNamespace = "backend"): string {
  return namespace === "backend" ? key : `${namespace}\n${key}`;
}

export interface CreateOptions {
  tenantId: string;
  input: CreateVerificationInput;
  originChannel?: string;
  templateId?: string;
  templateVersion?: number;
  idempotencyKey?: string;
  /** Whose requests share the key's namespace (`IdempotencyNamespace`); the tenant's back-end by default. */
  idempotencyNamespace?: IdempotencyNamespace;
  /** A request to a local deployment over loopback (`isLocalRequest`): webhook URLs are not guarded. */
  localRequest?: boolean;
  now?: number;
}

export type CreateOutcome =
  | { kind: "created"; record: VerificationRecord }
  | { kind: "replayed"; statusCode: number; body: string };

/**
 * Creates a verification: the row, its `verification.created` outbox event and the idempotency
 * record in one D1 batch, written by the Worker (a new verification has no other writer yet), then
 * the event is published. The verification's Durable Object is not on this path: the events
 * consumer arms it (`VerificationObject.arm`), any capture-flow call arms it first if it comes first, and
 * the minutely sweep (domain/verification/sweep.ts) catches one that was never armed.
 */
export async function createVerification(env: Env, db: Db, options: CreateOptions): Promise<CreateOutcome> {
  const now = options.now ?? Date.now();
  const { input } = options;
  let idempotency: { key: string; fingerprint: string } | undefined;
  if (options.idempotencyKey !== undefined) {
    const fingerprint = await sha256Hex(`POST /v1/verifications\n${canonicalize(input) ?? ""}`);
    const key = storedIdempotencyKey(options.idempotencyKey, options.idempotencyNamespace);
    const replay = await findReplay(db, options.tenantId, key, fingerprint, now);
    if (replay) return replay;
    idempotency = { key, fingerprint };
  }
  // What the verification requires must be assessable on its channel (a replay above answers as first answered).
  const defaults = assertAssessable(env, input, input.capture_channel ?? DEFAULT_CHANNEL);
  if (input.webhook_url !== undefined) await assertWebhookUrlAllowed(env, input.webhook_url, { local: options.localRequest === true });
  if (input.notify_email !== undefined) await reserveNotifyEmail(env, options.tenantId, options.templateId !== undefined ? "links" : "tenant");
  const row = newVerificationRow({
    id: newId("verification", now),
    tenantId: options.tenantId,
    config: normalizeConfig(input, defaults),
    sealEnabled: input.seal !== false,
    createdAt: now,
    expiresAt: now + (input.expires_in_seconds ?? DEFAULT_EXPIRES_IN_SECONDS) * 1000,
    originChannel: options.originChannel,
    templateId: options.templateId,
    templateVersion: options.templateId ? (options.templateVersion ?? 1) : undefined,
    // The URL above skipped the SSRF guard: its deliveries may too (and only theirs).
    webhookUnguarded: input.webhook_url !== undefined && options.localRequest === true,
  });
  const record: VerificationRecord = { row, captures: [], answers: [] };
  const created = eventRow(row.id, row.tenantId, { name: "verification.created" }, now);
  const hints = eventHints(record);
  const publish = createdHasSubscribers(hints, now);
  const statements: BatchItem<"sqlite">[] = [];
  if (idempotency) {
    // Stored in the same batch as the verification, so a replay always finds a finished response.
    const responseBody = JSON.stringify(presentVerification(record, { baseUrl: settings(env).baseUrl, audience: "tenant", now }));
    statements.push(
      db
        .delete(idempotencyKeys)
        .where(and(eq(idempotencyKeys.tenantId, row.tenantId), eq(idempotencyKeys.key, idempotency.key), lt(idempotencyKeys.createdAt, now - IDEMPOTENCY_TTL_MS))),
      db.insert(idempotencyKeys).values({ tenantId: row.tenantId, key: idempotency.key, fingerprint: idempotency.fingerprint, statusCode: 201, responseBody, createdAt: now }),
    );
  }
  statements.push(db.insert(verifications).values(row), db.insert(events).values(publish ? created : { ...created, dispatchedAt: now }));
  try {
    await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  } catch (err) {
    if (!idempotency || !isUniqueViolation(err)) throw err;
    // A concurrent request with the same key committed first: answer as its replay would.
    const replay = await findReplay(db, options.tenantId, idempotency.key, idempotency.fingerprint, now);
    if (replay) return replay;
    throw new ApiError("idempotency_conflict", "Another request with this Idempotency-Key won the race.");
  }
  if (publish) await publishCreated(env, created, hints);
  return { kind: "created", record };
}

/**
 * Whether `verification.created` has anyone to reach on the events queue. Its subscribers
 * (queues/events.consumer.ts) are the verification's webhook (`verification.created` is a webhook
 * type) and, for one expiring within ARM_AHEAD_MS, the arming of its object (sweep.ts). Without
 * either, the create records the event as dispatched and sends nothing: the timeline has it and
 * nobody waits for it. That saves each such create a queue send and the consumer's mark
 * (bench/PERF-RESULTS.md, "Issue 34"). A new subscriber of the event must be added here.
 */
export function createdHasSubscribers(hints: EventHints, now: number): boolean {
  return hints.webhook === true || armsAtCreation(hints.expiresAt, now);
}

/**
 * Published straight after the commit. The events consumer marks it dispatched when it arrives, a
 * whole batch in one write (`markCreatedDispatched`), which keeps that write off the request path. A
 * failed publish hands the event to the verification's Durable Object, whose alarm re-drives it; the
 * minutely sweep re-drives one nobody handed over (the isolate died right after the commit).
 */
async function publishCreated(env: Env, event: EventRow, hints: EventHints): Promise<void> {
  try {
    await queuePublisher(env.EVENTS_QUEUE).publish([event], hints);
  } catch (err) {
    log.error({ msg: "event publish failed; the verification's object will re-drive it", verification_id: event.verificationId, error: String(err) });
    await verificationObject(env, event.verificationId).arm(event.verificationId, { redrive: true });
  }
}

async function findReplay(db: Db, tenantId: string, key: string, fingerprint: string, now: number): Promise<CreateOutcome | null> {
  const stored = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.tenantId, tenantId), eq(idempotencyKeys.key, key), gte(idempotencyKeys.createdAt, now - IDEMPOTENCY_TTL_MS)))
    .get();
  if (!stored) return null;
  if (stored.fingerprint !== fingerprint) {
    throw new ApiError("idempotency_conflict", "This Idempotency-Key was already used with a different request body.");
  }
  return { kind: "replayed", statusCode: stored.statusCode, body: stored.responseBody };
}

export interface ListFilters {
  limit: number;
  cursor?: string;
  status?: VerificationStatus;
  verdict?: "verified" | "suspicious" | "failed";
  /** Whether the verdict evaluated anything (`assessment` other than `none`). */
  assessed?: boolean;
  templateId?: string;
  /** A `vfy_`/`cap_` id, or the start of a metadata value. */
  q?: string;
  hasReview?: boolean;
  createdGte?: number;
  createdLt?: number;
}

/**
 * Newest first, keyset-paginated on the id (a ULID, so it sorts by creation time). Every filter is
 * an equality on an index that ends in `id` (status, verdict label, assessed, template, reviewed), or a lookup
 * that yields a few ids (search), so a page reads about `limit` rows whatever the tenant holds.
 */
export async function listVerifications(env: Env, db: Db, tenantId: string, filters: ListFilters, now: number): Promise<{ records: VerificationRecord[]; nextCursor?: string }> {
  const secret = await signingKey(env, "cursors");
  const { limit: _limit, cursor, ...where } = filters;
  const query = { purpose: "list-cursor", tenantId, filters: where };
  const conditions: SQL[] = [eq(verifications.tenantId, tenantId)];
  if (cursor !== undefined) conditions.push(lt(verifications.id, await readCursor(secret, query, cursor)));
  if (filters.status) conditions.push(statusCondition(filters.status, now));
  // The same expression as the index verifications_tenant_verdict_idx, so SQLite uses it.
  if (filters.verdict) conditions.push(sql`(${verifications.verdict} ->> '$.label') = ${filters.verdict}`);
  // Likewise verifications_tenant_assessed_idx (every stored verdict carries `assessment`: migration 0017).
  if (filters.assessed !== undefined) conditions.push(sql`((${verifications.verdict} ->> '$.assessment') = 'none') = ${filters.assessed ? 0 : 1}`);
  if (filters.templateId) conditions.push(eq(verifications.templateId, filters.templateId));
  if (filters.q !== undefined) conditions.push(await searchCondition(db, tenantId, filters.q));
  // `review IS NOT NULL` is the condition of the partial index verifications_tenant_reviewed_idx.
  if (filters.hasReview !== undefined) conditions.push(filters.hasReview ? isNotNull(verifications.review) : isNull(verifications.review));
  if (filters.createdGte !== undefined) conditions.push(gte(verifications.createdAt, filters.createdGte));
  if (filters.createdLt !== undefined) conditions.push(lt(verifications.createdAt, filters.createdLt));
  const rows = await db
    .select()
    .from(verifications)
    .where(and(...conditions))
    .orderBy(desc(verifications.id))
    .limit(filters.limit + 1);
  const page = rows.slice(0, filters.limit);
  const records = await attachChildren(db, page);
  const last = page[page.length - 1];
  if (rows.length > filters.limit && last) {
    return { records, nextCursor: await issueCursor(secret, query, last.id) };
  }
  return { records };
}

/**
 * `status` as readers see it (`effectiveStatus`): a verification whose `expires_at` passed before its
 * evidence was complete reads `expired` before its alarm writes that down, so it is listed under
 * `expired` and no longer under the status still stored.
 */
function statusCondition(status: VerificationStatus, now: number): SQL {
  if (isTerminal(status) && status !== "expired") return eq(verifications.status, status);
  const lapsed = and(isNull(verifications.readyAt), lte(verifications.expiresAt, now))!;
  if (status !== "expired") return and(eq(verifications.status, status), not(lapsed))!;
  return and(inArray(verifications.status, ["expired", ...OPEN_STATUSES]), or(eq(verifications.status, "expired"), lapsed))!;
}

const OPEN_STATUSES: readonly VerificationStatus[] = STATUSES.filter((s) => !isTerminal(s));

/** Highest code point: `prefix || MAX` bounds every string that starts with `prefix`. */
const AFTER_EVERY_SUFFIX = String.fromCodePoint(0x10ffff);

/**
 * `q`: a verification id is itself; a capture id names its verification; anything else is the
 * start of a metadata value, looked up in `verification_search_terms` (lower-cased by SQLite's
 * `lower`, ASCII only, on both sides).
 */
async function searchCondition(db: Db, tenantId: string, q: string): Promise<SQL> {
  if (isId("verification", q)) return eq(verifications.id, q);
  if (isId("capture", q)) {
    const capture = await db
      .select({ verificationId: captures.verificationId })
      .from(captures)
      .where(and(eq(captures.id, q), eq(captures.tenantId, tenantId)))
      .get();
    return eq(verifications.id, capture?.verificationId ?? "");
  }
  const terms = db
    .select({ id: verificationSearchTerms.verificationId })
    .from(verificationSearchTerms)
    .where(
      and(
        eq(verificationSearchTerms.tenantId, tenantId),
        sql`${verificationSearchTerms.term} >= lower(${q})`,
        sql`${verificationSearchTerms.term} < lower(${q}) || ${AFTER_EVERY_SUFFIX}`,
      ),
    );
  return inArray(verifications.id, terms);
}

async function attachChildren(db: Db, rows: VerificationRecord["row"][]): Promise<VerificationRecord[]> {
  const byId = new Map<string, VerificationRecord>(rows.map((row) => [row.id, { row, captures: [], answers: [] }]));
  const ids = rows.map((r) => r.id);
  for (let i = 0; i < ids.length; i += 50) {
    const chunk = ids.slice(i, i + 50);
    const [captureRows, answerRows] = await db.batch([
      db.select().from(captures).where(inArray(captures.verificationId, chunk)).orderBy(captures.verificationId, captures.seq),
      db.select().from(answers).where(inArray(answers.verificationId, chunk)),
    ]);
    for (const c of captureRows) byId.get(c.verificationId)?.captures.push(c);
    for (const a of answerRows) byId.get(a.verificationId)?.answers.push(a);
  }
  return [...byId.values()];
}

/**
 * The 201 body of a creation: the new verification, or on an `Idempotency-Key` replay the exact
 * body first answered (`replayed` tells the route to add `Idempotent-Replayed: true`).
 */
export function presentCreated(
  outcome: CreateOutcome,
  options: { baseUrl: string; audience: Audience },
): { body: Record<string, unknown>; replayed: boolean } {
  if (outcome.kind === "replayed") return { body: JSON.parse(outcome.body) as Record<string, unknown>, replayed: true };
  return { body: presentVerification(outcome.record, options), replayed: false };
}
