import type { EventRow } from "../db/verifications";
import type { DomainEvent, QueueMessage } from "./messages";
import { directJobs } from "../queues/events.consumer";
import { sendAll } from "./send-all";

/** What the publisher knows of the events' verification and passes along (messages.ts). */
export interface EventHints {
  /** The verification's config names a `webhook_url`. */
  webhook?: boolean;
}

/** Puts outbox events on their way (`queuePublisher`). Replaceable so tests can inject a failing queue. */
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
export function eventHints(record: { row: { config: { webhook_url?: string } } }): EventHints {
  return { webhook: Boolean(record.row.config.webhook_url) };
}

/**
 * Publishes to the events queue, whose consumer fans each event out (queues/events.consumer.ts).
 * With the analysis queue and the hints, an event whose only work is analysis jobs (a capture of a
 * verification without a webhook: its `analyze_capture`) skips that hop: the jobs go straight to the
 * analysis queue, and an event nothing subscribes to is not sent at all. Both sends succeed or the
 * publish throws, so the outbox re-drives the whole call (a re-drive without hints goes through the
 * events queue, as before); a job sent twice is idempotent (analysis: first write wins).
 */
export function queuePublisher(queue: Queue<QueueMessage>, analysisQueue?: Queue<QueueMessage>): EventPublisher {
  return {
    async publish(events, hints = {}) {
      const viaConsumer: QueueMessage[] = [];
      const jobs: QueueMessage[] = [];
      for (const row of events) {
        const event = toDomainEvent(row);
        const direct = analysisQueue && hints.webhook !== undefined ? directJobs(event, hints) : null;
        if (direct) jobs.push(...direct);
        else viaConsumer.push({ type: "domain_event", v: 1, event, ...hints });
      }
      await Promise.all([viaConsumer.length > 0 && sendAll(queue, viaConsumer), analysisQueue && jobs.length > 0 && sendAll(analysisQueue, jobs)]);
    },
  };
}
