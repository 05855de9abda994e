ALTER TABLE `uploads` ADD `claimed_at` integer;--> statement-breakpoint
ALTER TABLE `users` ADD `sessions_valid_after` integer;