-- execute: owner
-- The advisory lock of one lane's critical window (issue 36): its runner (`npm run worker -- --exec`)
-- holds it while a critical pause is armed, and the lane's write_sent waits on it (worker_record_event).
-- A 64-bit key of lab, name and the lane's instance, a secret of whoever joined it: another role that
-- reads it in pg_locks cannot make one of its own that collides with it.
CREATE OR REPLACE FUNCTION fl_critical_window_key(p_lab text, p_name text, p_instance text) RETURNS bigint
LANGUAGE sql IMMUTABLE SET search_path = public, pg_temp AS $$
  SELECT hashtextextended('fencing-lab critical window/' || p_lab || '/' || p_name || '/' || p_instance, 0)
$$;
