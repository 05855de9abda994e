ALTER TABLE `capture_analyses` ADD `thumbnail` text;--> statement-breakpoint
ALTER TABLE `tenants` ADD `retention_days` integer;--> statement-breakpoint
CREATE INDEX `tenants_retention_idx` ON `tenants` (`id`) WHERE retention_days IS NOT NULL;--> statement-breakpoint
ALTER TABLE `verifications` ADD `review` text;--> statement-breakpoint
ALTER TABLE `verifications` ADD `redacted_at` integer;--> statement-breakpoint
CREATE INDEX `verifications_retention_idx` ON `verifications` (`tenant_id`,`created_at`,`id`) WHERE redacted_at IS NULL;--> statement-breakpoint
CREATE INDEX `outbound_messages_verification_idx` ON `outbound_messages` (`verification_id`);