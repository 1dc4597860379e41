-- execute: owner
-- The advisory lock of one lane's critical window (issue 36): its runner (`npm run worker -- --exec`)
-- holds it while a critical pause is armed, and the lane's write_sent waits on it (worker_record_event).
-- Keyed by the lane's instance too, a secret of whoever joined it: no other lane can name its lock.
CREATE OR REPLACE FUNCTION fl_critical_window_key(p_lab text, p_name text, p_instance text, OUT k1 integer,
                                                  OUT k2 integer)
LANGUAGE sql IMMUTABLE SET search_path = public, pg_temp AS $$
  SELECT hashtext('fencing-lab critical window'), hashtext(p_lab || '/' || p_name || '/' || p_instance)
$$;
