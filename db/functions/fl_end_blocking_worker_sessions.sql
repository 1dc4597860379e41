-- execute: app
-- Nothing a person's worker line holds may hold up anyone else (issue 33, item 3). A session of a
-- worker line that takes a lab's events lock, a lease's row or the row it writes and keeps its
-- transaction open (BEGIN; SELECT worker_record_event(…); SELECT pg_sleep(1.5); COMMIT, in a loop)
-- stays inside every time limit, yet each time it made the trainer's workers wait, until their
-- lock_timeout ended them. Each app server's watchdog calls this every 100 ms
-- (lib/jobs/worker-session-watchdog.ts): every worker line's session that another role's session
-- has waited on for longer than p_wait_ms (pg_locks.waitstart, pg_blocking_pids) is ended, and the
-- waiter goes on. A line that holds up only its own sessions is left alone: that is its own lane.
-- Returns how many sessions it ended.
CREATE OR REPLACE FUNCTION fl_end_blocking_worker_sessions(p_wait_ms integer) RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  WITH waiting AS (
    SELECT DISTINCT l.pid FROM pg_locks l
     WHERE NOT l.granted AND l.waitstart < clock_timestamp() - make_interval(secs => p_wait_ms / 1000.0)
  ), blocking AS (
    SELECT DISTINCT b.pid
      FROM waiting w
      JOIN pg_stat_activity wa ON wa.pid = w.pid
      CROSS JOIN LATERAL unnest(pg_blocking_pids(w.pid)) AS blocker(pid)
      JOIN pg_stat_activity b ON b.pid = blocker.pid
     WHERE b.datname = current_database() AND fl_is_worker_line(b.usename)
       AND wa.usename IS DISTINCT FROM b.usename
  )
  SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int FROM blocking
$$;
