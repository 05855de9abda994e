import type { EventRow } from "../db/verifications";
import type { DomainEvent, QueueMessage } from "./messages";
import { sendAll } from "./send-all";

/** What the publisher knows of the events' verification and passes along (messages.ts). */
export interface EventHints {
  /** The verification's config names a `webhook_url`. */
  webhook?: boolean;
  /** When the verification expires (ms; fixed at creation). */
  expiresAt?: number;
}

/** Puts outbox events on the events queue. Replaceable so tests can inject a failing queue. */
export interface EventPublisher {
  /** `hints` hold for every event of the call (all of one verification); omitted, consumers read what they need. */
  publish(events: EventRow[], hints?: EventHints): Promise<void>;
}

export function toDomainEvent(row: EventRow): DomainEvent {
  return {
    id: row.id,
    name: row.name,
    verification_id: row.verificationId,
    tenant_id: row.tenantId,
    occurred_at: row.occurredAt,
    payload: row.payload ?? null,
  };
}

/**
 * The hints of a verification's events. Exact for every event of the verification: its config
 * (and so its `webhook_url`) is fixed at creation; redaction keeps the `webhook_url`.
 */
export function eventHints(record: { row: { config: { webhook_url?: string }; expiresAt: number } }): EventHints {
  return { webhook: Boolean(record.row.config.webhook_url), expiresAt: record.row.expiresAt };
}

export function queuePublisher(queue: Queue<QueueMessage>): EventPublisher {
  return {
    async publish(events, hints = {}) {
      await sendAll<QueueMessage>(queue, events.map((e) => ({ type: "domain_event", v: 1, event: toDomainEvent(e), ...hints })));
    },
  };
}
