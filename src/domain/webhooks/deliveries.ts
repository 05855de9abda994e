import type { Db } from "../../db/client";
import { loadRecord, webhookUrlOf } from "../../db/verifications";
import {
  claimAttempt,
  insertDeliveryOnce,
  loadDelivery,
  markEnqueued,
  recordAttempt,
  reopenDelivery,
  restoreDelivery,
  type DeliveryRow,
} from "../../db/webhooks";
import { settings } from "../../env";
import type { DomainEvent } from "../../events/messages";
import { ApiError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { hostResolver, type HostResolver } from "../../providers/dns";
import { isCertifiable } from "../certificates/content";
import { currentCertificate } from "../certificates/issue";
import { presentCertificate } from "../certificates/present";
import { auditInsertWhile, type AuditEntry } from "../audit/log";
import { findTenant } from "../tenants/tenants";
import { webhookBody, webhookTypeFor } from "./events";
import { retryDelaySeconds, retryScheduleFor, type RetrySchedule } from "./schedule";
import { activeSecrets, signWebhook } from "./signing";
import { webhookUrlAllowed } from "./url-guard";

/** A delivery attempt that has not answered within this is a failure (timeout). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** How long a claimed attempt keeps other copies of its queue message away. */
const LEASE_MS = DELIVERY_TIMEOUT_MS + 20_000;
const USER_AGENT = "verification-service-webhooks/1";
const MAX_QUEUE_DELAY_SECONDS = 43_200;

/** The one place that puts work on the webhooks queue. */
export async function enqueueDelivery(env: Env, deliveryId: string): Promise<void> {
  await env.WEBHOOKS_QUEUE.send({ type: "deliver_webhook", v: 1, delivery_id: deliveryId });
}

/**
 * Events-queue subscriber: turns a domain event into one webhook delivery (unique per event id, so
 * a redelivered event reuses it) with its body frozen, and queues its first attempt. The delivery
 * goes to the verification's own `webhook_url`, which is fixed at its creation (a template's later
 * change applies to verifications created after it). `hasWebhook`: whether there is one, as the
 * event's publisher knew it (publisher.ts `eventHints`); undefined, it is read here.
 */
export async function createDeliveryForEvent(env: Env, db: Db, event: DomainEvent, now = Date.now(), hasWebhook?: boolean): Promise<DeliveryRow | null> {
  const type = webhookTypeFor(event.name);
  if (!type) return null;
  // A verification without a webhook needs nothing else: the hint, or one small read, decides before the record is loaded.
  if (!(hasWebhook ?? Boolean(await webhookUrlOf(db, event.verification_id)))) return null;
  const loaded = await loadRecord(db, event.verification_id);
  const url = loaded?.row.config.webhook_url;
  if (!loaded || !url) return null;
  // From completion on, the body carries the certificate of the state it shows (signed here when the
  // events consumer's certificate subscriber has not stored it yet); the object is read with it.
  const certified = isCertifiable(loaded.row) ? await currentCertificate(env, db, event.verification_id, now) : null;
  const record = certified?.record ?? loaded;
  const { baseUrl } = settings(env);
  const delivery = await insertDeliveryOnce(db, {
    id: newId("webhookDelivery", now),
    eventId: event.id,
    verificationId: event.verification_id,
    tenantId: event.tenant_id,
    eventType: type,
    url,
    payload: webhookBody({ id: event.id, occurredAt: event.occurred_at }, type, record, {
      baseUrl,
      now,
      ...(certified ? { certificate: presentCertificate(certified.certificate, baseUrl) } : {}),
    }),
    status: "pending",
    attempts: 0,
    lastStatusCode: null,
    lastError: null,
    nextAttemptAt: null,
    deliveredAt: null,
    createdAt: now,
    updatedAt: now,
    unguarded: record.row.webhookUnguarded,
  });
  // Not yet enqueued (new, or an earlier run failed before marking it): send the first message.
  if (delivery.status === "pending" && delivery.attempts === 0 && delivery.nextAttemptAt === null) {
    await enqueueDelivery(env, delivery.id);
    await markEnqueued(db, delivery.id, now);
  }
  return delivery;
}

/** What the queue should do with the message: done (ack), or try again after a delay. */
export type AttemptOutcome = { kind: "done" } | { kind: "retry"; delaySeconds: number };

export interface AttemptOptions {
  now?: () => number;
  fetcher?: typeof fetch;
  timeoutMs?: number;
  resolver?: HostResolver;
  schedule?: RetrySchedule;
}

/**
 * One delivery attempt for a `deliver_webhook` message (its `attempts`th delivery by the queue):
 * claim → SSRF guard → sign with the tenant's active secrets → POST
 * without following redirects → log the attempt. 2xx within the timeout succeeds; anything else is
 * retried on the backoff schedule until the queue dead-letters the message.
 */
export async function attemptDelivery(env: Env, db: Db, deliveryId: string, messageAttempts: number, options: AttemptOptions = {}): Promise<AttemptOutcome> {
  const clock = options.now ?? Date.now;
  const delivery = await loadDelivery(db, deliveryId);
  if (!delivery || delivery.status !== "pending") return { kind: "done" };
  const startedAt = clock();
  if (delivery.nextAttemptAt !== null && delivery.nextAttemptAt > startedAt) {
    // Leased by a concurrent copy of this message, or not due yet: look again when it should be.
    return { kind: "retry", delaySeconds: Math.min(Math.ceil((delivery.nextAttemptAt - startedAt) / 1000), MAX_QUEUE_DELAY_SECONDS) };
  }
  const attempt = await claimAttempt(db, delivery, startedAt + LEASE_MS, startedAt);
  if (attempt === null) return { kind: "retry", delaySeconds: Math.ceil(LEASE_MS / 1000) };

  const tenant = await findTenant(db, delivery.tenantId);
  if (!tenant) throw new Error(`tenant ${delivery.tenantId} of delivery ${delivery.id} not found`);
  // The guard is skipped only where creation skipped it: a local deployment, and a URL that a
  // loopback request set (`isLocalRequest`, recorded as `unguarded`). A development config behind a
  // public hostname guards every delivery, so a name rebound to a private address after creation is refused.
  const local = settings(env).isLocal && delivery.unguarded;
  const guard = await webhookUrlAllowed(delivery.url, { local, resolver: options.resolver ?? hostResolver(env) });
  if (!guard.ok && guard.reason === "unresolved") {
    // Fail closed, but not for good: the resolver may answer on the next attempt.
    const delaySeconds = retryDelaySeconds(messageAttempts, options.schedule ?? retryScheduleFor(env));
    await recordAttempt(db, {
      deliveryId: delivery.id,
      attempt,
      statusCode: null,
      latencyMs: 0,
      error: `not sent: ${guard.message}`,
      attemptedAt: startedAt,
      nextAttemptAt: clock() + delaySeconds * 1000,
      status: "pending",
    });
    return { kind: "retry", delaySeconds };
  }
  if (!guard.ok) {
    // Permanent: the URL will not become acceptable by waiting.
    await recordAttempt(db, {
      deliveryId: delivery.id,
      attempt,
      statusCode: null,
      latencyMs: 0,
      error: `refused by the URL guard: ${guard.message}`,
      attemptedAt: startedAt,
      nextAttemptAt: null,
      status: "failed",
    });
    return { kind: "done" };
  }

  const body = await bodyToSend(env, db, delivery, startedAt);
  const headers = signWebhook(delivery.eventId, body, activeSecrets(tenant, startedAt), startedAt);
  const sent = await post(options.fetcher ?? fetch, delivery.url, body, headers, options.timeoutMs ?? DELIVERY_TIMEOUT_MS, clock);
  const finishedAt = clock();
  if (sent.ok) {
    await recordAttempt(db, { ...sent, deliveryId: delivery.id, attempt, attemptedAt: startedAt, nextAttemptAt: null, status: "succeeded" });
    return { kind: "done" };
  }
  const delaySeconds = retryDelaySeconds(messageAttempts, options.schedule ?? retryScheduleFor(env));
  await recordAttempt(db, {
    ...sent,
    deliveryId: delivery.id,
    attempt,
    attemptedAt: startedAt,
    nextAttemptAt: finishedAt + delaySeconds * 1000,
    status: "pending",
  });
  return { kind: "retry", delaySeconds };
}

/**
 * The stored body, its `data.certificate` (when it has one) the certificate the service serves when
 * the attempt is made, as GET …/certificate serves it: a retry or a replay days later never carries
 * one that expired, that has less than CERTIFICATE_RENEW_BEFORE_SECONDS left, that names a tenant's
 * old name or a domain whose proof lapsed, or that precedes a redaction the object shows. After a
 * review, finalize or redaction it certifies that later state; its `sequence` says so.
 */
async function bodyToSend(env: Env, db: Db, delivery: DeliveryRow, now: number): Promise<string> {
  // Bodies before completion carry no certificate: no read, no parse.
  if (!delivery.payload.includes('"certificate":')) return delivery.payload;
  const certified = await currentCertificate(env, db, delivery.verificationId, now);
  // Still the one served (a first attempt, mostly): the stored bytes as they are.
  if (!certified || delivery.payload.includes(certified.certificate.jws)) return delivery.payload;
  const body = JSON.parse(delivery.payload) as { data?: { certificate?: unknown } };
  if (!body.data?.certificate) return delivery.payload;
  return JSON.stringify({ ...body, data: { ...body.data, certificate: presentCertificate(certified.certificate, settings(env).baseUrl) } });
}

export interface Sent {
  ok: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

/** One signed POST, never following redirects nor reading the body back; every failure is a value. */
export async function post(
  doFetch: typeof fetch,
  url: string,
  body: string,
  signed: Record<string, string>,
  timeoutMs: number,
  clock: () => number,
): Promise<Sent> {
  const started = clock();
  try {
    const res = await doFetch(url, {
      method: "POST",
      headers: { ...signed, "Content-Type": "application/json", "User-Agent": USER_AGENT },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    // The response body is never read back (nothing of the receiver's is stored or echoed).
    await res.body?.cancel();
    const latencyMs = clock() - started;
    if (res.status >= 200 && res.status < 300) return { ok: true, statusCode: res.status, latencyMs, error: null };
    const error = res.status >= 300 && res.status < 400 ? `redirect (HTTP ${res.status}) not followed` : `HTTP ${res.status}`;
    return { ok: false, statusCode: res.status, latencyMs, error };
  } catch (err) {
    const latencyMs = clock() - started;
    const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
    const error = timedOut ? `timeout: no response within ${timeoutMs / 1000} s` : `network error: ${networkErrorWords(err)}`;
    return { ok: false, statusCode: null, latencyMs, error: error.slice(0, 500) };
  }
}

/**
 * What a failed connection says to the tenant. The runtime reports a host that does not resolve, or
 * a connection it could not open, as "internal error; reference = …", which reads as this service's
 * fault and whose reference means nothing outside Cloudflare: it is named for what it is.
 */
function networkErrorWords(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/^internal error; reference = /.test(message)) return "could not connect (the host did not resolve, or refused the connection)";
  return message;
}

/**
 * Manual retry (`POST /v1/webhook-deliveries/{id}/retry`): a failed delivery (or a succeeded one,
 * to replay it) goes back to pending with the same id and body and is queued again. A delivery
 * still pending is already scheduled: 409.
 */
export async function retryDelivery(env: Env, db: Db, tenantId: string, deliveryId: string, audit?: (before: DeliveryRow) => AuditEntry, now = Date.now()): Promise<DeliveryRow> {
  // `webhook_delivery.retried` is written with the reopening, only by the request that reopens it.
  const recorded = audit
    ? (before: DeliveryRow) =>
        auditInsertWhile(db, audit(before), now, {
          sql: "EXISTS (SELECT 1 FROM webhook_deliveries WHERE id = ? AND status = ? AND status IN ('failed', 'succeeded'))",
          params: [before.id, before.status],
        })
    : undefined;
  const result = await reopenDelivery(db, deliveryId, tenantId, now, recorded);
  if (!result) throw ApiError.notFound("webhook delivery");
  if (!result.reopened) throw new ApiError("invalid_state", "This delivery is still being attempted; its next attempt is already scheduled.");
  try {
    await enqueueDelivery(env, deliveryId);
  } catch (err) {
    await restoreDelivery(db, result.before);
    throw err;
  }
  const after = await loadDelivery(db, deliveryId);
  if (!after) throw ApiError.notFound("webhook delivery");
  return after;
}
