-- execute: worker
-- An --exec lane's runner arms a critical pause (issue 36): it takes its lane's critical-window lock
-- on its own session (fl_critical_window_key), so that the program's next write_sent waits there
-- until the runner has frozen it (worker_critical_window_reached, then worker_release_critical_window).
-- Taken once however often it is called; taken before the run's lock (worker_generation), as a
-- write_sent waits on it before that lock, so that the two never wait on each other.
CREATE OR REPLACE FUNCTION worker_hold_critical_window(p_lab text, p_name text, p_instance text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  k bigint := fl_critical_window_key(p_lab, p_name, p_instance);
BEGIN
  IF NOT EXISTS (SELECT FROM fl_critical_window_locks(k) l WHERE l.pid = pg_backend_pid() AND l.granted) THEN
    PERFORM pg_advisory_lock(k);
  END IF;
  PERFORM worker_generation(p_lab, p_name, p_instance);
END $$;
