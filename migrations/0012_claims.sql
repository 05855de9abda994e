CREATE TABLE `domain_claims` (
	`tenant_id` text PRIMARY KEY NOT NULL,
	`domain` text NOT NULL,
	`token` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `invitations` ADD `claimed_at` integer;--> statement-breakpoint
ALTER TABLE `invitations` ADD `claimed_by` text;--> statement-breakpoint
CREATE INDEX `invitations_claimed_idx` ON `invitations` (`claimed_by`) WHERE claimed_by IS NOT NULL AND accepted_at IS NULL AND revoked_at IS NULL;--> statement-breakpoint
ALTER TABLE `tenants` ADD `verified_domain` text;--> statement-breakpoint
ALTER TABLE `tenants` ADD `verified_domain_token` text;--> statement-breakpoint
ALTER TABLE `tenants` ADD `verified_domain_at` integer;--> statement-breakpoint
ALTER TABLE `tenants` ADD `verified_domain_confirmed_at` integer;--> statement-breakpoint
ALTER TABLE `tenants` ADD `verified_domain_checked_at` integer;--> statement-breakpoint
CREATE INDEX `tenants_domain_recheck_idx` ON `tenants` (`verified_domain_checked_at`) WHERE verified_domain IS NOT NULL;