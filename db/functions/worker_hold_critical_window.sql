-- execute: worker
-- An --exec lane's runner arms a critical pause (issue 36): it takes its lane's critical-window lock
-- on its own session (fl_critical_window_key), so that the program's next write_sent waits there
-- until the runner has frozen it (worker_critical_window_reached, then worker_release_critical_window).
-- Taken once however often it is called.
CREATE OR REPLACE FUNCTION worker_hold_critical_window(p_lab text, p_name text, p_instance text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  k record;
BEGIN
  PERFORM worker_generation(p_lab, p_name, p_instance);
  k := fl_critical_window_key(p_lab, p_name, p_instance);
  IF NOT EXISTS (SELECT FROM pg_locks l
                  WHERE l.locktype = 'advisory' AND l.pid = pg_backend_pid() AND l.granted AND l.objsubid = 2
                    AND l.classid = k.k1::oid AND l.objid = k.k2::oid) THEN
    PERFORM pg_advisory_lock(k.k1, k.k2);
  END IF;
END $$;
