-- execute: worker
-- The runner lets its lane's write_sent in (after freezing the program, or when the pause is
-- cancelled): it lets go of the critical-window lock it holds, if it holds it. No identity check: a
-- session may always let go of what it holds, even after its lab was reset.
CREATE OR REPLACE FUNCTION worker_release_critical_window(p_lab text, p_name text, p_instance text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  k record;
BEGIN
  k := fl_critical_window_key(p_lab, p_name, p_instance);
  WHILE EXISTS (SELECT FROM pg_locks l
                 WHERE l.locktype = 'advisory' AND l.pid = pg_backend_pid() AND l.granted AND l.objsubid = 2
                   AND l.classid = k.k1::oid AND l.objid = k.k2::oid) LOOP
    PERFORM pg_advisory_unlock(k.k1, k.k2);
  END LOOP;
END $$;
