-- Compare-and-swap on verifications: every UPDATE must set version to exactly the current version + 1.
-- The Durable Object writes `version = <version it read> + 1` as the first statement of each D1 batch;
-- if anything else committed in between, this aborts the whole batch (D1 batches are transactions).
CREATE TRIGGER verifications_version_cas
BEFORE UPDATE ON verifications
FOR EACH ROW
WHEN NEW.version <> OLD.version + 1
BEGIN
  SELECT RAISE(ABORT, 'version_conflict');
END;
