-- execute: owner
-- Takes a person's worker line back: no more logins, its sessions ended, what it owns or granted
-- dropped (a role may ALTER DEFAULT PRIVILEGES for itself, which DROP ROLE alone refuses to forget:
-- one such line once stopped every issue of the room), the role dropped, its row deleted. Returns
-- false, with a warning, when PostgreSQL refuses (the line is left for the next pass), so that one
-- line never stops the issue of another.
CREATE OR REPLACE FUNCTION fl_drop_worker_line(p_role text) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  IF NOT fl_is_worker_line(p_role::name) THEN
    RAISE EXCEPTION 'not a worker line: %', p_role USING ERRCODE = '22023';
  END IF;
  BEGIN
    IF EXISTS (SELECT FROM pg_roles r WHERE r.rolname = p_role) THEN
      EXECUTE format('ALTER ROLE %I NOLOGIN', p_role);
      PERFORM pg_terminate_backend(a.pid) FROM pg_stat_activity a WHERE a.usename = p_role;
      EXECUTE format('DROP OWNED BY %I', p_role);
      EXECUTE format('DROP ROLE %I', p_role);
    END IF;
    DELETE FROM worker_lines WHERE role_name = p_role;
    RETURN true;
  EXCEPTION WHEN OTHERS THEN
    RAISE WARNING 'the worker line % could not be dropped (%): it is tried again later', p_role, SQLERRM;
    RETURN false;
  END;
END $$;
