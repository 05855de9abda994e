PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_image_hashes` (
	`capture_id` text NOT NULL,
	`region` text DEFAULT 'full' NOT NULL,
	`verification_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`algorithm` text NOT NULL,
	`hash` text NOT NULL,
	`aux` text,
	`band0` integer NOT NULL,
	`band1` integer NOT NULL,
	`band2` integer NOT NULL,
	`band3` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`capture_id`, `region`)
);
--> statement-breakpoint
INSERT INTO `__new_image_hashes`("capture_id", "region", "verification_id", "tenant_id", "algorithm", "hash", "aux", "band0", "band1", "band2", "band3", "created_at") SELECT "capture_id", 'full', "verification_id", "tenant_id", "algorithm", "hash", NULL, "band0", "band1", "band2", "band3", "created_at" FROM `image_hashes`;--> statement-breakpoint
DROP TABLE `image_hashes`;--> statement-breakpoint
ALTER TABLE `__new_image_hashes` RENAME TO `image_hashes`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `image_hashes_band0_idx` ON `image_hashes` (`algorithm`,`region`,`band0`);--> statement-breakpoint
CREATE INDEX `image_hashes_band1_idx` ON `image_hashes` (`algorithm`,`region`,`band1`);--> statement-breakpoint
CREATE INDEX `image_hashes_band2_idx` ON `image_hashes` (`algorithm`,`region`,`band2`);--> statement-breakpoint
CREATE INDEX `image_hashes_band3_idx` ON `image_hashes` (`algorithm`,`region`,`band3`);