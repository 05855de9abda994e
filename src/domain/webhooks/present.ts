import type { AttemptRow, DeliveryRow } from "../../db/webhooks";
import { iso } from "../../lib/time";

export function presentDelivery(d: DeliveryRow, attempts: AttemptRow[]): Record<string, unknown> {
  return {
    id: d.id,
    event_id: d.eventId,
    event_type: d.eventType,
    verification_id: d.verificationId,
    url: d.url,
    status: d.status,
    attempt_count: d.attempts,
    ...(d.lastStatusCode !== null ? { last_status_code: d.lastStatusCode } : {}),
    ...(d.lastError !== null ? { last_error: d.lastError } : {}),
    ...(d.status === "pending" && d.nextAttemptAt !== null ? { next_attempt_at: iso(d.nextAttemptAt) } : {}),
    ...(d.deliveredAt !== null ? { delivered_at: iso(d.deliveredAt) } : {}),
    created_at: iso(d.createdAt),
    updated_at: iso(d.updatedAt),
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      ...(a.statusCode !== null ? { status_code: a.statusCode } : {}),
      latency_ms: a.latencyMs,
      ...(a.error !== null ? { error: a.error } : {}),
      attempted_at: iso(a.attemptedAt),
      ...(a.nextAttemptAt !== null ? { next_attempt_at: iso(a.nextAttemptAt) } : {}),
    })),
  };
}
