ALTER TABLE `tenants` ADD `share_reuse_index` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `tenants_shared_reuse_idx` ON `tenants` (`id`) WHERE share_reuse_index = 1;