-- execute: worker
-- Whether the lane's program waits at its critical window: its write_sent is held by the lock its
-- runner holds (worker_hold_critical_window). The runner then freezes it, and lets the write_sent in.
CREATE OR REPLACE FUNCTION worker_critical_window_reached(p_lab text, p_name text, p_instance text) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  k record;
BEGIN
  PERFORM worker_generation(p_lab, p_name, p_instance);
  k := fl_critical_window_key(p_lab, p_name, p_instance);
  RETURN EXISTS (SELECT FROM pg_locks l
                  WHERE l.locktype = 'advisory' AND NOT l.granted AND l.objsubid = 2
                    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    AND l.classid = k.k1::oid AND l.objid = k.k2::oid);
END $$;
