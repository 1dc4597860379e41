-- execute: worker
-- Whether the lane's program waits at its critical window: its write_sent is held by the lock its
-- runner holds (worker_hold_critical_window). The runner then freezes it, and lets the write_sent in.
CREATE OR REPLACE FUNCTION worker_critical_window_reached(p_lab text, p_name text, p_instance text) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM worker_generation(p_lab, p_name, p_instance);
  RETURN EXISTS (SELECT FROM fl_critical_window_locks(fl_critical_window_key(p_lab, p_name, p_instance)) l
                  WHERE NOT l.granted);
END $$;
