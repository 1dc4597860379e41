-- execute: app
-- The worker roles' time limits (each person's worker line, 0046, and the local one, 0041), enforced: its session defaults (0040) are user settings that any
-- session may SET back (statement_timeout = 0), so each app server's watchdog calls this every second
-- (lib/jobs/worker-session-watchdog.ts). Ends every worker session with a statement running longer
-- than p_statement_ms, or a transaction idle longer than p_idle_ms, or open longer than both: one
-- that holds a lab's events lock, a runaway cross join. No worker the app starts opens a transaction
-- of its own, and its statements take milliseconds. Returns how many it ended.
CREATE OR REPLACE FUNCTION fl_end_overdue_worker_sessions(p_statement_ms integer, p_idle_ms integer)
RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  SELECT count(*) FILTER (WHERE pg_terminate_backend(a.pid))::int
    FROM pg_stat_activity a
   WHERE (a.usename IN (fencing_lab_role('worker'), fencing_lab_role('local')) OR fl_is_worker_line(a.usename))
     AND a.datname = current_database()
     AND a.pid <> pg_backend_pid()
     AND ((a.state = 'active' AND a.query_start < clock_timestamp() - make_interval(secs => p_statement_ms / 1000.0))
       OR (a.state LIKE 'idle in transaction%'
           AND a.state_change < clock_timestamp() - make_interval(secs => p_idle_ms / 1000.0))
       OR a.xact_start < clock_timestamp() - make_interval(secs => (p_statement_ms + p_idle_ms) / 1000.0))
$$;
