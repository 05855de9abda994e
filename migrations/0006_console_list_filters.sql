CREATE TABLE `verification_search_terms` (
	`tenant_id` text NOT NULL,
	`term` text NOT NULL,
	`verification_id` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `term`, `verification_id`)
);
--> statement-breakpoint
CREATE INDEX `verification_search_terms_verification_idx` ON `verification_search_terms` (`verification_id`);--> statement-breakpoint
ALTER TABLE `magic_links` ADD `return_to` text;--> statement-breakpoint
CREATE INDEX `verifications_tenant_verdict_idx` ON `verifications` (`tenant_id`,(verdict ->> '$.label'),`id`);--> statement-breakpoint
CREATE INDEX `verifications_tenant_template_idx` ON `verifications` (`tenant_id`,`template_id`,`id`);--> statement-breakpoint
CREATE INDEX `verifications_tenant_reviewed_idx` ON `verifications` (`tenant_id`,`id`) WHERE review IS NOT NULL;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_tenant_idx` ON `webhook_deliveries` (`tenant_id`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_tenant_status_idx` ON `webhook_deliveries` (`tenant_id`,`status`,`id`);
--> statement-breakpoint
-- Search terms (GET /v1/verifications?q=): every metadata value of a verification, ASCII lower-cased,
-- kept by triggers so that each path that writes `config` (creation, redaction) keeps the index true
-- in the same statement, with nothing for the application code to forget.
CREATE TRIGGER verification_search_terms_insert
AFTER INSERT ON verifications
FOR EACH ROW
BEGIN
  INSERT OR IGNORE INTO verification_search_terms (tenant_id, term, verification_id)
  SELECT NEW.tenant_id, lower(j.value), NEW.id FROM json_each(NEW.config, '$.metadata') AS j WHERE j.type = 'text' AND j.value <> '';
END;
--> statement-breakpoint
CREATE TRIGGER verification_search_terms_update
AFTER UPDATE OF config ON verifications
FOR EACH ROW
WHEN NEW.config IS NOT OLD.config
BEGIN
  DELETE FROM verification_search_terms WHERE verification_id = OLD.id;
  INSERT OR IGNORE INTO verification_search_terms (tenant_id, term, verification_id)
  SELECT NEW.tenant_id, lower(j.value), NEW.id FROM json_each(NEW.config, '$.metadata') AS j WHERE j.type = 'text' AND j.value <> '';
END;
--> statement-breakpoint
INSERT OR IGNORE INTO verification_search_terms (tenant_id, term, verification_id)
SELECT v.tenant_id, lower(j.value), v.id FROM verifications AS v, json_each(v.config, '$.metadata') AS j WHERE j.type = 'text' AND j.value <> '';
