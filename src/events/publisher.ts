import type { EventRow } from "../db/verifications";
import type { DomainEvent, QueueMessage } from "./messages";

/** Puts outbox events on the events queue. Replaceable so tests can inject a failing queue. */
export interface EventPublisher {
  publish(events: EventRow[]): Promise<void>;
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

export function queuePublisher(queue: Queue<QueueMessage>): EventPublisher {
  return {
    async publish(events) {
      // sendBatch takes at most 100 messages.
      for (let i = 0; i < events.length; i += 100) {
        await queue.sendBatch(
          events.slice(i, i + 100).map((e) => ({ body: { type: "domain_event", v: 1, event: toDomainEvent(e) } as const })),
        );
      }
    },
  };
}
