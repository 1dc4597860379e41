-- The worker role's session defaults (issue 23): how long a statement may run, a lock be waited for
-- and a transaction sit idle, and how much memory a sort or hash may take. They are `user` settings,
-- which any session may SET back: they protect against accidents. The time limits are enforced on a
-- session that sets them back by the servers' watchdog (db/functions/fl_end_overdue_worker_sessions.sql,
-- lib/jobs/worker-session-watchdog.ts). temp_file_limit (0020) is a superuser setting: it holds.
DO $$
DECLARE
  worker text := fencing_lab_role('worker');
BEGIN
  EXECUTE format('ALTER ROLE %I SET statement_timeout = %L', worker, '2s');
  EXECUTE format('ALTER ROLE %I SET lock_timeout = %L', worker, '1s');
  EXECUTE format('ALTER ROLE %I SET idle_in_transaction_session_timeout = %L', worker, '2s');
  EXECUTE format('ALTER ROLE %I SET work_mem = %L', worker, '4MB');
EXCEPTION WHEN insufficient_privilege THEN
  RAISE WARNING 'the owner may not set the worker role''s session limits (%): the watchdog still enforces the time limits', SQLERRM;
END $$;
