CREATE TABLE `audit_log` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`action` text NOT NULL,
	`actor_type` text NOT NULL,
	`actor_id` text NOT NULL,
	`actor_label` text,
	`target_type` text NOT NULL,
	`target_id` text NOT NULL,
	`target_label` text,
	`details` text,
	`ip` text,
	`user_agent` text,
	`occurred_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_log_tenant_idx` ON `audit_log` (`tenant_id`,`id`);--> statement-breakpoint
CREATE INDEX `audit_log_tenant_action_idx` ON `audit_log` (`tenant_id`,`action`,`id`);--> statement-breakpoint
CREATE INDEX `audit_log_tenant_actor_idx` ON `audit_log` (`tenant_id`,`actor_id`,`id`);--> statement-breakpoint
CREATE TABLE `invitations` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`token_hash` text NOT NULL,
	`invited_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`sent_at` integer NOT NULL,
	`send_count` integer NOT NULL,
	`accepted_at` integer,
	`accepted_by` text,
	`revoked_at` integer,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invitations_token_hash_unique` ON `invitations` (`token_hash`);--> statement-breakpoint
CREATE INDEX `invitations_tenant_idx` ON `invitations` (`tenant_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `invitations_open_email_idx` ON `invitations` (`tenant_id`,`email`) WHERE accepted_at IS NULL AND revoked_at IS NULL;--> statement-breakpoint
CREATE TABLE `memberships` (
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`role` text NOT NULL,
	`created_at` integer NOT NULL,
	`sessions_valid_after` integer,
	PRIMARY KEY(`tenant_id`, `user_id`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `memberships_user_idx` ON `memberships` (`user_id`);--> statement-breakpoint
-- users.tenant_id becomes the tenant a sign-in lands on; rights move to memberships. RENAME COLUMN
-- keeps the rows, the foreign keys pointing at users and the index (no table rebuild).
ALTER TABLE `users` RENAME COLUMN `tenant_id` TO `default_tenant_id`;--> statement-breakpoint
-- Every existing user is the owner of the tenant they belonged to. The membership dates from the
-- user's creation, so the sessions already issued stay valid.
INSERT INTO `memberships` (`tenant_id`, `user_id`, `role`, `created_at`) SELECT `default_tenant_id`, `id`, 'owner', `created_at` FROM `users`;--> statement-breakpoint
-- The audit log is append-only: no statement may change or remove an entry (a redaction neither).
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN
  SELECT RAISE(ABORT, 'audit_log is append-only');
END;--> statement-breakpoint
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN
  SELECT RAISE(ABORT, 'audit_log is append-only');
END;
--> statement-breakpoint
-- A tenant always keeps an owner: demoting or removing its last one aborts the whole batch (the
-- API answers 409 invalid_state), whatever requests race.
CREATE TRIGGER memberships_last_owner_update BEFORE UPDATE OF role ON memberships
WHEN OLD.role = 'owner' AND NEW.role <> 'owner' AND (SELECT count(*) FROM memberships WHERE tenant_id = OLD.tenant_id AND role = 'owner') <= 1
BEGIN
  SELECT RAISE(ABORT, 'last_owner');
END;--> statement-breakpoint
CREATE TRIGGER memberships_last_owner_delete BEFORE DELETE ON memberships
WHEN OLD.role = 'owner' AND (SELECT count(*) FROM memberships WHERE tenant_id = OLD.tenant_id AND role = 'owner') <= 1
BEGIN
  SELECT RAISE(ABORT, 'last_owner');
END;
