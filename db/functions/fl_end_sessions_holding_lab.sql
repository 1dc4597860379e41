-- execute: app
-- A reset ends the sessions that hold the lab's generation lock and do not finish (a worker frozen
-- by the operating system in the middle of a transaction): mostly the worker role's, which the app
-- role may not signal. Only sessions holding that lab's lock: they belong to the run being reset.
CREATE OR REPLACE FUNCTION fl_end_sessions_holding_lab(p_lab text) RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  -- A two-key advisory lock shows its keys as unsigned 32-bit numbers in classid and objid.
  SELECT count(*) FILTER (WHERE pg_terminate_backend(l.pid))::int
    FROM pg_locks l
   WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 AND l.pid <> pg_backend_pid()
     AND l.classid = (hashtext('fencing_lab.generation')::bigint & 4294967295)::oid
     AND l.objid = (hashtext(p_lab)::bigint & 4294967295)::oid
$$;
