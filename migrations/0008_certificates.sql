CREATE TABLE `certificate_keys` (
	`kid` text PRIMARY KEY NOT NULL,
	`public_jwk` text NOT NULL,
	`created_at` integer NOT NULL,
	`withdrawn_at` integer
);
--> statement-breakpoint
CREATE TABLE `certificate_links` (
	`id` text PRIMARY KEY NOT NULL,
	`verification_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`verification_id`) REFERENCES `verifications`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `certificate_links_token_hash_unique` ON `certificate_links` (`token_hash`);--> statement-breakpoint
CREATE INDEX `certificate_links_verification_idx` ON `certificate_links` (`verification_id`,`id`);--> statement-breakpoint
CREATE TABLE `certificates` (
	`verification_id` text NOT NULL,
	`sequence` integer NOT NULL,
	`tenant_id` text NOT NULL,
	`state_version` integer NOT NULL,
	`content_sha256` text NOT NULL,
	`kid` text NOT NULL,
	`jws` text NOT NULL,
	`issued_at` integer NOT NULL,
	PRIMARY KEY(`verification_id`, `sequence`)
);
