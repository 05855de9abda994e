-- Verdicts stored before `assessment` existed (or before it could say `none`) get it written down,
-- computed as src/model/verification/present.ts#presentVerdict serves them: `none` when no signal
-- was evaluated (each is not_assessed or not_applicable), `partial` when one was not assessed,
-- `complete` otherwise. The list filter `assessed` then reads one stored value. The version moves
-- with the write, as the compare-and-swap trigger (0001) requires of every update.
UPDATE `verifications` SET `version` = `version` + 1, `verdict` = json_set(`verdict`, '$.assessment', CASE
    WHEN NOT EXISTS (
      SELECT 1 FROM json_each(`verdict`, '$.signals') AS s
      WHERE s.type <> 'object' OR coalesce(json_extract(s.value, '$.status'), '') NOT IN ('not_assessed', 'not_applicable')
    ) THEN 'none'
    WHEN EXISTS (
      SELECT 1 FROM json_each(`verdict`, '$.signals') AS s
      WHERE s.type = 'object' AND json_extract(s.value, '$.status') = 'not_assessed'
    ) THEN 'partial'
    ELSE 'complete'
  END)
WHERE `verdict` IS NOT NULL AND json_valid(`verdict`) AND coalesce(`verdict` ->> '$.assessment', 'complete') = 'complete';--> statement-breakpoint
CREATE INDEX `verifications_tenant_assessed_idx` ON `verifications` (`tenant_id`,((verdict ->> '$.assessment') = 'none'),`id`);
