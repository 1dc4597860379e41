-- Sweeps as jobs any app server on this database runs (issue 24): a sweep started from the page is a
-- row here and one graphile-worker job per run (key 'sweep_run:<sweep>:<index>'); a run's result is
-- written once, by whichever server ran it (a run tried again after its server died cannot add a
-- second). Its progress is read from here by any server, so the page follows it whichever server
-- answers. The room runs one sweep at a time: its runs are real worker processes on machines the room
-- shares, and the index below says so where no script can walk around it.
CREATE TABLE sweeps (
  id          text PRIMARY KEY CHECK (id ~ '^s-[a-z0-9]{10}$'),
  -- 'trainer' or 'owner:<hash>' (lib/server/sweep-commands.ts): who may follow and stop it.
  started_by  text NOT NULL CHECK (length(started_by) <= 100),
  grid        jsonb NOT NULL CHECK (length(grid::text) <= 2000),
  concurrency integer NOT NULL CHECK (concurrency BETWEEN 1 AND 8),
  total       integer NOT NULL CHECK (total BETWEEN 1 AND 200),
  stopped     boolean NOT NULL DEFAULT false,
  -- Set once no job of it remains; with fewer results than runs and not stopped, it says why.
  failure     text CHECK (length(failure) <= 2000),
  started_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  finished_at timestamptz
);
CREATE UNIQUE INDEX sweeps_one_running ON sweeps ((true)) WHERE finished_at IS NULL;
CREATE INDEX sweeps_by_starter ON sweeps (started_by, started_at);

CREATE TABLE sweep_results (
  sweep  text NOT NULL REFERENCES sweeps (id) ON DELETE CASCADE,
  index  integer NOT NULL CHECK (index BETWEEN 0 AND 199),
  result jsonb NOT NULL CHECK (length(result::text) <= 4000),
  PRIMARY KEY (sweep, index)
);

DO $$
DECLARE
  app text := fencing_lab_role('app');
BEGIN
  EXECUTE format('GRANT SELECT, INSERT, DELETE ON sweeps TO %I', app);
  EXECUTE format('GRANT UPDATE (stopped, failure, finished_at) ON sweeps TO %I', app);
  EXECUTE format('GRANT SELECT, INSERT ON sweep_results TO %I', app);
END $$;
