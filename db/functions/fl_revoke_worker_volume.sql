-- execute: owner
-- Takes from PUBLIC, at every start (db/migrate.ts), the built-ins with which the worker role could
-- write without bound (issue 33 item 7): pg_logical_emit_message (a WAL record of any size per call:
-- 3 x 100 MB grew the WAL from 32 to 320 MB), large objects (0020 took them once), pg_notify (the app
-- role keeps it: its own statements and triggers notify; the worker's functions notify with the
-- owner's rights), and TEMPORARY on the database (0014: temporary tables are not bounded by
-- temp_file_limit). Idempotent. Only a superuser may change the built-ins' privileges: with another
-- owner nothing is taken, and the function returns what the worker role may still call, for the
-- operator to revoke (docs/running-a-room.md).
CREATE OR REPLACE FUNCTION fl_revoke_worker_volume() RETURNS text[]
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  app text := public.fencing_lab_role('app');
  worker text := public.fencing_lab_role('worker');
  fn regprocedure;
  still text[];
BEGIN
  FOR fn IN SELECT p.oid::regprocedure FROM pg_proc p
             WHERE p.pronamespace = 'pg_catalog'::regnamespace
               AND p.proname IN ('pg_logical_emit_message', 'lo_create', 'lo_creat', 'lo_from_bytea', 'lo_import',
                                 'lo_export', 'lo_open', 'lo_put', 'lowrite', 'lo_truncate', 'lo_truncate64',
                                 'lo_unlink', 'pg_notify')
  LOOP
    BEGIN
      EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', fn);
      IF fn::text LIKE 'pg_notify(%' THEN EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %I', fn, app); END IF;
    EXCEPTION WHEN insufficient_privilege THEN
      NULL; -- said below, with every other one the worker role still has
    END;
  END LOOP;
  BEGIN
    EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
  EXCEPTION WHEN insufficient_privilege THEN
    NULL;
  END;
  SELECT array_agg(p.oid::regprocedure::text ORDER BY 1) INTO still FROM pg_proc p
   WHERE p.pronamespace = 'pg_catalog'::regnamespace
     AND p.proname IN ('pg_logical_emit_message', 'lo_create', 'lo_creat', 'lo_from_bytea', 'lo_import', 'lo_export',
                       'lo_open', 'lo_put', 'lowrite', 'lo_truncate', 'lo_truncate64', 'lo_unlink', 'pg_notify')
     AND has_function_privilege(worker, p.oid, 'EXECUTE');
  IF has_database_privilege(worker, current_database(), 'TEMPORARY') THEN
    still := array_append(still, format('TEMPORARY ON DATABASE %I', current_database()));
  END IF;
  RETURN coalesce(still, '{}');
END $$;
