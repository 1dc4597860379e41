-- execute: app
-- Every person's worker line whose settings are not as issued, put back (fl_restore_worker_line).
-- Each app server's watchdog calls this every second (lib/jobs/worker-session-watchdog.ts): a line
-- whose owner set default_transaction_read_only, RESET ALL or IN DATABASE … SET on it is refused at
-- its next join in words (worker_join), and works again within a second. Returns how many.
CREATE OR REPLACE FUNCTION fl_restore_changed_worker_lines() RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  line text;
  restored integer := 0;
BEGIN
  FOR line IN SELECT w.role_name FROM worker_lines w
               WHERE fl_worker_line_changed(w.role_name::name) IS NOT NULL
                 AND EXISTS (SELECT FROM pg_roles r WHERE r.rolname = w.role_name) LOOP
    -- One line PostgreSQL will not restore now (its own ALTER ROLE under way) waits for the next pass alone.
    BEGIN
      PERFORM fl_restore_worker_line(line);
      restored := restored + 1;
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'the worker line % could not be restored now (%)', line, SQLERRM;
    END;
  END LOOP;
  RETURN restored;
END $$;
