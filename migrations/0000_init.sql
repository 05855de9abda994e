CREATE TABLE `answers` (
	`verification_id` text NOT NULL,
	`step_key` text NOT NULL,
	`value` text NOT NULL,
	`answered_at` integer NOT NULL,
	PRIMARY KEY(`verification_id`, `step_key`),
	FOREIGN KEY (`verification_id`) REFERENCES `verifications`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`scope` text NOT NULL,
	`key_hash` text NOT NULL,
	`key_prefix` text NOT NULL,
	`name` text,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_tenant_idx` ON `api_keys` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `bot_nonces` (
	`signature` text PRIMARY KEY NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `capture_analyses` (
	`capture_id` text PRIMARY KEY NOT NULL,
	`verification_id` text NOT NULL,
	`status` text NOT NULL,
	`result` text,
	`error` text,
	`analyzed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `capture_analyses_verification_idx` ON `capture_analyses` (`verification_id`);--> statement-breakpoint
CREATE TABLE `captures` (
	`id` text PRIMARY KEY NOT NULL,
	`verification_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`step_key` text NOT NULL,
	`step_type` text NOT NULL,
	`seq` integer NOT NULL,
	`image_key` text NOT NULL,
	`content_type` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`sha256` text NOT NULL,
	`surface` text,
	`client_captured_at` integer,
	`location` text,
	`forensic_buffer_key` text,
	`attestation` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`verification_id`) REFERENCES `verifications`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `captures_image_key_unique` ON `captures` (`image_key`);--> statement-breakpoint
CREATE INDEX `captures_verification_idx` ON `captures` (`verification_id`,`seq`);--> statement-breakpoint
CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`verification_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`payload` text,
	`occurred_at` integer NOT NULL,
	`dispatched_at` integer
);
--> statement-breakpoint
CREATE INDEX `events_verification_idx` ON `events` (`verification_id`,`id`);--> statement-breakpoint
CREATE INDEX `events_undispatched_idx` ON `events` (`verification_id`) WHERE dispatched_at IS NULL;--> statement-breakpoint
CREATE TABLE `geocode_cache` (
	`query` text PRIMARY KEY NOT NULL,
	`result` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`tenant_id` text NOT NULL,
	`key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`status_code` integer NOT NULL,
	`response_body` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `key`)
);
--> statement-breakpoint
CREATE TABLE `image_hashes` (
	`capture_id` text PRIMARY KEY NOT NULL,
	`verification_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`algorithm` text NOT NULL,
	`hash` text NOT NULL,
	`band0` integer NOT NULL,
	`band1` integer NOT NULL,
	`band2` integer NOT NULL,
	`band3` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `image_hashes_band0_idx` ON `image_hashes` (`algorithm`,`band0`);--> statement-breakpoint
CREATE INDEX `image_hashes_band1_idx` ON `image_hashes` (`algorithm`,`band1`);--> statement-breakpoint
CREATE INDEX `image_hashes_band2_idx` ON `image_hashes` (`algorithm`,`band2`);--> statement-breakpoint
CREATE INDEX `image_hashes_band3_idx` ON `image_hashes` (`algorithm`,`band3`);--> statement-breakpoint
CREATE TABLE `link_template_versions` (
	`template_id` text NOT NULL,
	`version` integer NOT NULL,
	`name` text NOT NULL,
	`mode` text NOT NULL,
	`spec` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`template_id`, `version`),
	FOREIGN KEY (`template_id`) REFERENCES `link_templates`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `link_templates` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`mode` text NOT NULL,
	`status` text NOT NULL,
	`version` integer NOT NULL,
	`spec` text NOT NULL,
	`started_total` integer DEFAULT 0 NOT NULL,
	`started_today` integer DEFAULT 0 NOT NULL,
	`started_day` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `link_templates_tenant_slug_idx` ON `link_templates` (`tenant_id`,`slug`);--> statement-breakpoint
CREATE TABLE `magic_links` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`token_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `magic_links_token_hash_unique` ON `magic_links` (`token_hash`);--> statement-breakpoint
CREATE TABLE `otp_codes` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`phone` text NOT NULL,
	`code_hash` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `outbound_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`dedupe_key` text NOT NULL,
	`channel` text NOT NULL,
	`recipient` text NOT NULL,
	`subject` text,
	`body` text NOT NULL,
	`verification_id` text,
	`provider` text NOT NULL,
	`status` text NOT NULL,
	`error` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `outbound_messages_dedupe_key_unique` ON `outbound_messages` (`dedupe_key`);--> statement-breakpoint
CREATE TABLE `queue_failures` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`queue` text NOT NULL,
	`message_id` text NOT NULL,
	`body` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `tenants` (
	`id` text PRIMARY KEY NOT NULL,
	`slug` text NOT NULL,
	`display_name` text NOT NULL,
	`webhook_secret` text NOT NULL,
	`webhook_secret_previous` text,
	`webhook_secret_previous_expires_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tenants_slug_unique` ON `tenants` (`slug`);--> statement-breakpoint
CREATE TABLE `uploads` (
	`id` text PRIMARY KEY NOT NULL,
	`verification_id` text NOT NULL,
	`kind` text NOT NULL,
	`object_key` text NOT NULL,
	`content_type` text NOT NULL,
	`max_bytes` integer NOT NULL,
	`status` text NOT NULL,
	`size_bytes` integer,
	`sha256` text,
	`sniffed_type` text,
	`expires_at` integer NOT NULL,
	`uploaded_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`verification_id`) REFERENCES `verifications`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `uploads_object_key_unique` ON `uploads` (`object_key`);--> statement-breakpoint
CREATE INDEX `uploads_verification_idx` ON `uploads` (`verification_id`);--> statement-breakpoint
CREATE TABLE `user_identities` (
	`provider` text NOT NULL,
	`subject` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`provider`, `subject`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`email` text,
	`phone` text,
	`display_name` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `users_tenant_idx` ON `users` (`tenant_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_idx` ON `users` (`email`);--> statement-breakpoint
CREATE TABLE `verifications` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`status` text NOT NULL,
	`version` integer NOT NULL,
	`config` text NOT NULL,
	`seal_enabled` integer NOT NULL,
	`origin_channel` text,
	`template_id` text,
	`template_version` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`captures_count` integer DEFAULT 0 NOT NULL,
	`submitted_at` integer,
	`ready_at` integer,
	`completed_at` integer,
	`seal_hash` text,
	`verdict` text,
	`object_match` text,
	`location_match` text,
	`condition` text,
	`failure_reason` text,
	`narrative` text,
	`finalized_at` integer,
	`case_analysis` text,
	`progress` text,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `verifications_tenant_list_idx` ON `verifications` (`tenant_id`,`id`);--> statement-breakpoint
CREATE INDEX `verifications_tenant_status_idx` ON `verifications` (`tenant_id`,`status`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`delivery_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`status_code` integer,
	`latency_ms` integer NOT NULL,
	`error` text,
	`attempted_at` integer NOT NULL,
	`next_attempt_at` integer,
	FOREIGN KEY (`delivery_id`) REFERENCES `webhook_deliveries`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_attempts_delivery_attempt_idx` ON `webhook_attempts` (`delivery_id`,`attempt`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`event_id` text NOT NULL,
	`verification_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`event_type` text NOT NULL,
	`url` text NOT NULL,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_status_code` integer,
	`last_error` text,
	`next_attempt_at` integer,
	`delivered_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_event_id_unique` ON `webhook_deliveries` (`event_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_verification_idx` ON `webhook_deliveries` (`verification_id`,`id`);