CREATE TABLE `burst_frames` (
	`tenant_id` text NOT NULL,
	`digest` text NOT NULL,
	`capture_id` text NOT NULL,
	`verification_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `digest`, `capture_id`)
);
--> statement-breakpoint
CREATE INDEX `burst_frames_capture_idx` ON `burst_frames` (`capture_id`);