-- execute: owner
-- The sessions on a lane's critical-window lock (fl_critical_window_key): who holds it and who waits.
-- A one-key advisory lock shows its 64 bits as two unsigned halves, classid and objid, objsubid 1.
CREATE OR REPLACE FUNCTION fl_critical_window_locks(p_key bigint, OUT pid integer, OUT granted boolean)
RETURNS SETOF record
LANGUAGE sql STABLE SET search_path = public, pg_temp AS $$
  SELECT l.pid, l.granted FROM pg_locks l
   WHERE l.locktype = 'advisory' AND l.objsubid = 1
     AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
     AND l.classid = ((p_key >> 32) & 4294967295)::oid AND l.objid = (p_key & 4294967295)::oid
$$;
