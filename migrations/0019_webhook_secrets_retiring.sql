ALTER TABLE `tenants` ADD `webhook_secrets_retiring` text;--> statement-breakpoint
-- A secret rotated out before this migration keeps its window.
UPDATE `tenants` SET `webhook_secrets_retiring` = json_array(json_object('secret', `webhook_secret_previous`, 'expires_at', `webhook_secret_previous_expires_at`))
WHERE `webhook_secret_previous` IS NOT NULL AND `webhook_secret_previous_expires_at` IS NOT NULL;
