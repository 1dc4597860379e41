-- execute: owner
-- Takes a person's worker line back: its sessions ended, the role dropped (it owns nothing: the
-- worker group may create nothing), its row deleted.
CREATE OR REPLACE FUNCTION fl_drop_worker_line(p_role text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  IF NOT fl_is_worker_line(p_role::name) THEN
    RAISE EXCEPTION 'not a worker line: %', p_role USING ERRCODE = '22023';
  END IF;
  PERFORM pg_terminate_backend(a.pid) FROM pg_stat_activity a WHERE a.usename = p_role;
  EXECUTE format('DROP ROLE IF EXISTS %I', p_role);
  DELETE FROM worker_lines WHERE role_name = p_role;
END $$;
