ALTER TABLE `verifications` ADD `webhook_unguarded` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `verifications_awaiting_verdict_idx` ON `verifications` (`ready_at`,`id`) WHERE status NOT IN ('completed', 'expired', 'failed') AND ready_at IS NOT NULL AND redacted_at IS NULL;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `unguarded` integer DEFAULT false NOT NULL;--> statement-breakpoint
-- Hand-written (drizzle-kit splits an expression index at its comma): pending deliveries by when
-- their queue message was due, for the sweep of lost delivery messages (src/domain/webhooks/stuck.ts).
CREATE INDEX `webhook_deliveries_pending_due_idx` ON `webhook_deliveries` ((coalesce(next_attempt_at, created_at))) WHERE status = 'pending';
