-- How many guards a trainee may send a minute, counted by the database for the whole room (issue 24):
-- each app server used to count in its own memory, so two servers on one database gave a trainee
-- twice the share, and a restart forgot it. An attempt now keeps the client address it came from
-- (for the count only: never shown, not among the columns the wall or the editor read) and what the
-- limits count it as: an attack (a statement the parser took, sent to the line) or a refusal (refused
-- before it ran, stored for the wall). db/functions/fl_take_guard_share.sql judges the last minute
-- on the database's clock, under a lock per owner and per address, in the statement that inserts
-- the attempt (db/guard-queue.ts, db/guard-attempts.ts).
ALTER TABLE guard_attempts
  ADD COLUMN address    text CHECK (length(address) <= 100),
  ADD COLUMN counted_as text NOT NULL DEFAULT 'attack' CHECK (counted_as IN ('attack', 'refusal'));

-- The refusals stored so far: refused before any server claimed them (a guard PostgreSQL refused at
-- its install was claimed, and went to the line). The wall need not hear of each again.
ALTER TABLE guard_attempts DISABLE TRIGGER guard_attempts_notify;
UPDATE guard_attempts SET counted_as = 'refusal' WHERE outcome = 'refused' AND run_token IS NULL;
ALTER TABLE guard_attempts ENABLE TRIGGER guard_attempts_notify;

CREATE INDEX guard_attempts_owner_minute ON guard_attempts (owner_hash, counted_as, created_at);
CREATE INDEX guard_attempts_address_minute ON guard_attempts (address, counted_as, created_at)
  WHERE address IS NOT NULL;

-- The app inserts both columns (its INSERT on the table, 0034) and may change neither: its UPDATE is
-- granted column by column (0043), and these are not among them.
