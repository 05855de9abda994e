import { z } from "zod";

/** A domain event as it travels on the events queue (the outbox row, minus delivery bookkeeping). */
export const DomainEventSchema = z.object({
  id: z.string(),
  name: z.string(),
  verification_id: z.string(),
  tenant_id: z.string(),
  occurred_at: z.number(),
  payload: z.record(z.string(), z.unknown()).nullable(),
});
export type DomainEvent = z.infer<typeof DomainEventSchema>;

/** Every queue message body, versioned and discriminated by `type`. */
export const QueueMessageSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("domain_event"),
    v: z.literal(1),
    event: DomainEventSchema,
    // Whether the verification's config names a `webhook_url` (fixed at creation), as the publisher
    // knew it: the consumer then needs no read to decide. Absent (re-drives): the consumer reads it.
    webhook: z.boolean().optional(),
    // When the verification expires (ms), as the publisher knew it: the consumer arms a new
    // verification's object at creation only when the minutely sweep might not arm it in time.
    expiresAt: z.int().optional(),
  }),
  // Analysis jobs name their tenant for the lane they take (events/analysis-jobs.ts); absent on jobs
  // sent before lanes existed, which take the fast lane.
  z.object({ type: z.literal("analyze_capture"), v: z.literal(1), verification_id: z.string(), capture_id: z.string(), tenant_id: z.string().optional() }),
  z.object({ type: z.literal("settle_verification"), v: z.literal(1), verification_id: z.string(), tenant_id: z.string().optional() }),
  z.object({ type: z.literal("analyze_case"), v: z.literal(1), verification_id: z.string(), tenant_id: z.string().optional() }),
  z.object({ type: z.literal("deliver_webhook"), v: z.literal(1), delivery_id: z.string() }),
  // Retention (domain/retention/retention.ts): one page of a tenant's due verifications, then the next.
  z.object({
    type: z.literal("retention_sweep"),
    v: z.literal(1),
    tenant_id: z.string(),
    cutoff: z.number(),
    after: z.object({ created_at: z.number(), id: z.string() }).optional(),
  }),
  z.object({ type: z.literal("redact_verifications"), v: z.literal(1), tenant_id: z.string(), ids: z.array(z.string()).min(1).max(100) }),
]);
export type QueueMessage = z.infer<typeof QueueMessageSchema>;
