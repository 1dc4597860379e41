-- Guard attacks as jobs any app server on this database runs (issue 24): a submitted guard is an
-- attempt 'queued' until a server's attack finishes it ('passed', 'violation') or cannot ('failed').
-- The job itself lives in graphile-worker's schema (installed by db/job-queue-schema.ts after these
-- migrations); these columns say who runs it. Each claim takes a run token from a sequence, and only
-- the holder of the newest may write the verdict: a server presumed dead that wakes finds its run
-- fenced off, as the lab teaches.
ALTER TABLE guard_attempts DROP CONSTRAINT guard_attempts_outcome_check;
ALTER TABLE guard_attempts ADD CONSTRAINT guard_attempts_outcome_check
  CHECK (outcome IN ('queued', 'passed', 'violation', 'refused', 'failed'));
ALTER TABLE guard_attempts
  ADD COLUMN detail      text CHECK (length(detail) <= 2000),
  ADD COLUMN run_token   bigint,
  ADD COLUMN run_by      text CHECK (length(run_by) <= 200),
  ADD COLUMN started_at  timestamptz,
  ADD COLUMN finished_at timestamptz;
CREATE SEQUENCE guard_attack_run_tokens;

-- One guard in line per trainee, whichever server or tab they submit from: the database refuses a second.
CREATE UNIQUE INDEX guard_attempts_one_queued ON guard_attempts (owner_hash) WHERE outcome = 'queued';
CREATE INDEX guard_attempts_in_line ON guard_attempts (id) WHERE outcome = 'queued';

-- The app servers that run jobs, each beating every 500 ms with its job pools' ids and its slots; a
-- peer whose beat is stale is forgotten and its pools' jobs unlocked for the others (db/job-servers.ts).
CREATE TABLE job_servers (
  id       text PRIMARY KEY CHECK (length(id) <= 200),
  pool_ids text[] NOT NULL DEFAULT '{}',
  slots    integer NOT NULL CHECK (slots BETWEEN 0 AND 64),
  beat_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- The wall and the editors hear a claim and a verdict as well as a new attempt.
DROP TRIGGER guard_attempts_notify ON guard_attempts;
CREATE TRIGGER guard_attempts_notify AFTER INSERT OR UPDATE ON guard_attempts
  FOR EACH ROW EXECUTE FUNCTION guard_attempts_notify();

DO $$
DECLARE
  app text := fencing_lab_role('app');
BEGIN
  EXECUTE format('GRANT UPDATE (outcome, rule, verdict, detail, history, run_token, run_by, started_at, finished_at)
                  ON guard_attempts TO %I', app);
  EXECUTE format('GRANT USAGE ON SEQUENCE guard_attack_run_tokens TO %I', app);
  EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON job_servers TO %I', app);
END $$;
