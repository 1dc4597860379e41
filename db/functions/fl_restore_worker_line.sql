-- execute: owner
-- Puts a person's worker line's settings back as issued (fl_worker_line_settings): every database's
-- settings of the role reset, then the issued ones set. Its password is left alone: a person who
-- changed it locked out only themselves, and their lab's page issues the line again with a new one.
CREATE OR REPLACE FUNCTION fl_restore_worker_line(p_role text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  d oid;
  setting text;
BEGIN
  IF NOT fl_is_worker_line(p_role::name) THEN
    RAISE EXCEPTION 'not a worker line: %', p_role USING ERRCODE = '22023';
  END IF;
  FOR d IN SELECT s.setdatabase FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole
            WHERE r.rolname = p_role AND s.setdatabase <> 0 LOOP
    EXECUTE format('ALTER ROLE %I IN DATABASE %I RESET ALL', p_role, (SELECT datname FROM pg_database WHERE oid = d));
  END LOOP;
  EXECUTE format('ALTER ROLE %I RESET ALL', p_role);
  FOREACH setting IN ARRAY fl_worker_line_settings() LOOP
    BEGIN
      EXECUTE format('ALTER ROLE %I SET %I = %L', p_role, split_part(setting, '=', 1), split_part(setting, '=', 2));
    EXCEPTION WHEN insufficient_privilege THEN
      -- temp_file_limit needs a superuser owner; the watchdog still enforces the time limits.
      RAISE WARNING 'the owner may not set % on a worker line (%)', setting, SQLERRM;
    END;
  END LOOP;
END $$;
