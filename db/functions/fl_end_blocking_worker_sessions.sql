-- execute: app
-- Nothing a person's worker line holds may hold up anyone else (issue 33, item 3). A session of a
-- worker line that takes a lab's events lock, a lease's row or the row it writes and keeps its
-- transaction open (BEGIN; SELECT worker_record_event(…); SELECT pg_sleep(1.5); COMMIT, in a loop)
-- stays inside every time limit, yet each time it made the trainer's workers wait, until their
-- lock_timeout ended them. Each app server's watchdog calls this every 100 ms
-- (lib/jobs/worker-session-watchdog.ts), and it ends:
--   * every worker line's session that another role's session has waited on for longer than
--     p_wait_ms (pg_locks.waitstart, pg_blocking_pids), unless it is itself waiting (a session
--     queued ahead of the waiter holds nothing: the one at the head of the queue is the one ended);
--   * every worker line's session whose transaction has been open longer than p_transaction_ms:
--     some of the app's passes skip what is locked rather than wait (the expiry recorder's SKIP
--     LOCKED), so a lock held in a long transaction holds them up without anyone waiting. A worker's
--     own calls are single statements of milliseconds.
--   * every worker line's session that leads parallel workers (below).
-- A line that holds up only its own sessions is left alone: that is its own lane. Returns how many
-- sessions it ended.
CREATE OR REPLACE FUNCTION fl_end_blocking_worker_sessions(p_wait_ms integer, p_transaction_ms integer)
RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  WITH waiting AS (
    SELECT DISTINCT l.pid FROM pg_locks l
     WHERE NOT l.granted AND l.waitstart < clock_timestamp() - make_interval(secs => p_wait_ms / 1000.0)
  ), blocking AS (
    SELECT b.pid
      FROM waiting w
      JOIN pg_stat_activity wa ON wa.pid = w.pid
      CROSS JOIN LATERAL unnest(pg_blocking_pids(w.pid)) AS blocker(pid)
      JOIN pg_stat_activity b ON b.pid = blocker.pid
     WHERE b.datname = current_database() AND fl_is_worker_line(b.usename)
       AND wa.usename IS DISTINCT FROM b.usename
       AND NOT EXISTS (SELECT FROM pg_locks q WHERE q.pid = b.pid AND NOT q.granted)
  ), parallel_leaders AS (
    -- Parallel workers are backends of their own that a line's connection limit does not count, each
    -- burning a CPU and its own work_mem: 4 sessions ran 7 backends (issue 33 review). A line's
    -- session that leads one is ended with them.
    SELECT DISTINCT p.leader_pid AS pid FROM pg_stat_activity p
     WHERE p.leader_pid IS NOT NULL AND p.leader_pid <> p.pid
       AND p.datname = current_database() AND fl_is_worker_line(p.usename)
  ), long_open AS (
    SELECT a.pid FROM pg_stat_activity a
     WHERE a.datname = current_database() AND fl_is_worker_line(a.usename)
       AND a.xact_start < clock_timestamp() - make_interval(secs => p_transaction_ms / 1000.0)
  )
  SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int
    FROM (SELECT pid FROM blocking UNION SELECT pid FROM parallel_leaders UNION SELECT pid FROM long_open) ended
$$;
