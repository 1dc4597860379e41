-- execute: owner
-- The session defaults every person's worker line is issued with (fl_issue_worker_line), as
-- pg_db_role_setting holds them, in one place: the join compares a line's settings with these
-- (fl_worker_line_changed), and the watchdog puts them back (fl_restore_changed_worker_lines).
-- The same limits as the worker role's (0040) and the local role's (0041). The time limits are user
-- settings a session may SET back for itself: the watchdog enforces them on every worker session
-- (fl_end_overdue_worker_sessions); temp_file_limit is a superuser setting, which holds, and which
-- only a superuser owner can set on a role: with another owner it is not among them (else every line
-- would look changed for ever). No parallel query: a worker's calls are single-row statements, and
-- parallel workers are backends the line's connection limit does not count (a session that SETs it
-- back is ended by the watchdog, fl_end_blocking_worker_sessions).
CREATE OR REPLACE FUNCTION fl_worker_line_settings() RETURNS text[]
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT ARRAY['idle_in_transaction_session_timeout=2s', 'lock_timeout=1s', 'max_parallel_workers_per_gather=0',
               'statement_timeout=2s']
         || CASE WHEN (SELECT r.rolsuper FROM pg_roles r WHERE r.rolname = current_user)
                 THEN ARRAY['temp_file_limit=64MB'] ELSE ARRAY[]::text[] END
         || ARRAY['work_mem=4MB']
$$;
