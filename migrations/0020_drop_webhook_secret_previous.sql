ALTER TABLE `tenants` DROP COLUMN `webhook_secret_previous`;--> statement-breakpoint
ALTER TABLE `tenants` DROP COLUMN `webhook_secret_previous_expires_at`;