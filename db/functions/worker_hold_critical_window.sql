-- execute: worker
-- An --exec lane's runner arms a critical pause (issue 36): it takes its lane's critical-window lock
-- on its own session (fl_critical_window_key), so that the program's next write_sent waits there
-- until the runner has frozen it (worker_critical_window_reached, then worker_release_critical_window).
-- Taken once however often it is called; taken before the run's lock (worker_generation), as a
-- write_sent waits on it before that lock, so that the two never wait on each other.
--
-- Only a running worker's own call takes it (its instance is its own secret), checked before the
-- lock, and a session holds one lane's window at most (a runner runs one lane): a session-level lock
-- outlives the error after it, so a line naming lanes it is not, or many of its own, would otherwise
-- fill the cluster's shared lock table with locks no watchdog ends (found by a probe, 12-08).
CREATE OR REPLACE FUNCTION worker_hold_critical_window(p_lab text, p_name text, p_instance text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  k bigint := fl_critical_window_key(p_lab, p_name, p_instance);
BEGIN
  IF NOT EXISTS (SELECT FROM remote_workers r
                  WHERE r.lab = p_lab AND r.name = p_name AND r.instance = p_instance AND r.stopped_at IS NULL) THEN
    RAISE EXCEPTION 'no running worker % with this instance in the lab % (join the lab first)', p_name, p_lab
      USING ERRCODE = 'FL008';
  END IF;
  IF NOT EXISTS (SELECT FROM fl_critical_window_locks(k) l WHERE l.pid = pg_backend_pid() AND l.granted) THEN
    IF EXISTS (SELECT FROM pg_locks l
                WHERE l.pid = pg_backend_pid() AND l.locktype = 'advisory' AND l.granted
                  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())) THEN
      RAISE EXCEPTION 'this session already holds another lane''s critical window (one lane per session)'
        USING ERRCODE = '42501';
    END IF;
    PERFORM pg_advisory_lock(k);
  END IF;
  PERFORM worker_generation(p_lab, p_name, p_instance);
END $$;
