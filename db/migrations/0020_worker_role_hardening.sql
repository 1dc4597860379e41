-- Hardening after a review of the worker role (issue 11). What a trainee holding the room's worker
-- line could still do, and what now stops it:
--  * join someone else's private lab (its id travels in notifications): a private lab is joined only
--    with its join key (labs.join_key), which the app server hands to the workers it starts;
--  * write the fenced row with a token granted to another worker: refused, as a token of another lab is;
--  * take the advisory locks the app waits on, end other sessions, fill the disk with large objects,
--    or send notifications as the app: those built-in functions are no longer PUBLIC's (the app role
--    keeps the locks and pg_notify; the owner and the SECURITY DEFINER functions are unaffected);
--  * open every connection: the worker role gets a connection limit, and its temporary files a cap;
--  * store settings of any size or a name the app would refuse, or plant lanes without end: worker_join
--    checks the name and the settings and counts the lab's workers.

ALTER TABLE labs ADD COLUMN join_key text;
UPDATE labs SET join_key = replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', '')
 WHERE visibility = 'private';

DROP FUNCTION worker_join(text, text, text, jsonb);
CREATE FUNCTION worker_join(p_lab text, p_name text, p_instance text, p_settings jsonb,
                            p_join_key text DEFAULT NULL)
RETURNS TABLE (refusal text, generation bigint, kind text, row_id integer, resource text, visibility text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  b labs%ROWTYPE;
  last_local text;
  joined bigint;
BEGIN
  IF p_instance IS NULL OR length(p_instance) < 16 OR length(p_instance) > 64 THEN
    RAISE EXCEPTION 'an instance is 16 to 64 characters' USING ERRCODE = '22023';
  END IF;
  -- A name as the app's own rules make it (lib/model/lab-inputs.ts workerNameSchema), and settings
  -- that are small and name the same worker: the servers show them and may restart from them.
  IF p_name IS NULL OR length(p_name) > 40 OR p_name !~ '^[[:alpha:][:digit:] _.-]+$' OR p_name ~* '^w[0-9]+$' THEN
    RAISE EXCEPTION 'a worker name holds 1 to 40 letters, digits, spaces, _ . - (and is not like w1)'
      USING ERRCODE = '22023';
  END IF;
  IF p_settings IS NULL OR jsonb_typeof(p_settings) <> 'object' OR octet_length(p_settings::text) > 1000
     OR p_settings ->> 'name' IS DISTINCT FROM p_name THEN
    RAISE EXCEPTION 'a worker''s settings are a small object that names it' USING ERRCODE = '22023';
  END IF;
  SELECT * INTO b FROM labs l WHERE l.id = p_lab AND l.history_deleted_at IS NULL;
  -- A private lab is joined only with its join key, which its server gives the workers it starts: its
  -- id alone (a notification may carry it) is no way in. Refused as if there were no such lab.
  IF FOUND AND b.visibility = 'private' AND (p_join_key IS NULL OR p_join_key IS DISTINCT FROM b.join_key) THEN
    RETURN QUERY SELECT 'no_lab', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'no_lab', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  IF b.closed_at IS NOT NULL THEN
    RETURN QUERY SELECT 'closed', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  -- Names are told apart without case, as the supervisor does: "far" would hide "Far".
  IF EXISTS (SELECT 1 FROM remote_workers r WHERE r.lab = p_lab AND lower(r.name) = lower(p_name)
                AND r.name <> p_name AND r.stopped_at IS NULL
                AND r.heartbeat_at > clock_timestamp() - interval '5 seconds'
                AND r.generation = b.generation) THEN
    RETURN QUERY SELECT 'name_taken', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  -- Nor the name of a worker the server runs in the lab: the last word on that name in the lab's
  -- history says whether it still runs.
  SELECT e.kind INTO last_local FROM events e
   WHERE e.lab = p_lab AND lower(e.actor) = lower(p_name) AND NOT (e.detail ? 'remote')
     AND e.kind IN ('worker_started', 'worker_restarted', 'worker_stopped', 'worker_crashed')
   ORDER BY e.id DESC LIMIT 1;
  IF last_local IN ('worker_started', 'worker_restarted') THEN
    RETURN QUERY SELECT 'name_taken', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  -- At most MAX_STATUS_ROWS workers in a run of a lab (live, or kept as restartable): a script cannot
  -- plant lanes without end.
  IF (SELECT count(*) FROM remote_workers r
       WHERE r.lab = p_lab AND r.generation = b.generation AND r.name <> p_name
         AND ((r.stopped_at IS NULL AND r.heartbeat_at > clock_timestamp() - interval '5 seconds')
              OR (r.server IS NOT NULL AND r.phase <> 'stopped'))) >= 16 THEN
    RETURN QUERY SELECT 'full', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  INSERT INTO remote_workers AS r (lab, name, instance, settings, phase, generation)
  VALUES (p_lab, p_name, p_instance, p_settings, 'starting', b.generation)
  ON CONFLICT (lab, name) DO UPDATE
     SET instance = EXCLUDED.instance, settings = EXCLUDED.settings, phase = 'starting', token = NULL,
         generation = EXCLUDED.generation, believed_until = NULL, armed = false,
         started_at = clock_timestamp(), heartbeat_at = clock_timestamp(), stopped_at = NULL
   WHERE r.stopped_at IS NOT NULL
      OR r.heartbeat_at <= clock_timestamp() - interval '5 seconds'
      OR r.generation <> (SELECT l.generation FROM labs l WHERE l.id = r.lab)
  RETURNING r.generation INTO joined;
  IF joined IS NULL THEN
    RETURN QUERY SELECT 'name_taken', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  UPDATE worker_commands c SET taken_at = clock_timestamp()
   WHERE c.lab = p_lab AND c.worker = p_name AND c.taken_at IS NULL;
  RETURN QUERY SELECT NULL::text, joined, b.kind, b.row_id, b.resource, b.visibility;
END $$;

CREATE OR REPLACE FUNCTION worker_fenced_write(p_lab text, p_name text, p_instance text, p_value text, p_token bigint)
RETURNS TABLE (outcome text, row_id integer, stored_token bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  joined bigint;
  b labs%ROWTYPE;
BEGIN
  IF length(p_value) > 10000 THEN RAISE EXCEPTION 'value must be at most 10000 characters' USING ERRCODE = '22023'; END IF;
  joined := worker_generation(p_lab, p_name, p_instance);
  SELECT * INTO b FROM labs l WHERE l.id = p_lab;
  IF b.kind <> 'fenced' THEN
    RAISE EXCEPTION 'the lab % is not fenced: it has its own write', p_lab USING ERRCODE = 'FL011';
  END IF;
  -- A worker writes with a token granted to it: another worker's token, even of this lab, is refused.
  IF NOT EXISTS (SELECT 1 FROM lease_grants g WHERE g.token = p_token AND g.lab = p_lab AND g.holder = p_name) THEN
    RAISE EXCEPTION 'token % was not granted to % in the lab %', p_token, p_name, p_lab USING ERRCODE = 'FL009';
  END IF;
  RETURN QUERY SELECT w.outcome, b.row_id, w.stored_token
                 FROM fl_fenced_write(b.row_id, p_value, p_token, p_name, p_lab, joined) w;
END $$;

DO $$
DECLARE
  app text := fencing_lab_role('app');
  worker text := fencing_lab_role('worker');
  fn regprocedure;
BEGIN
  EXECUTE format('GRANT EXECUTE ON FUNCTION worker_join(text, text, text, jsonb, text) TO %I', worker);
  EXECUTE format('ALTER ROLE %I CONNECTION LIMIT 200', worker);
  FOR fn IN SELECT p.oid::regprocedure FROM pg_proc p
             WHERE p.pronamespace = 'pg_catalog'::regnamespace
               AND (p.proname LIKE '%advisory%'
                    OR p.proname IN ('lo_create', 'lo_creat', 'lo_from_bytea', 'lo_import', 'lo_export', 'lo_open',
                                     'lo_put', 'lowrite', 'lo_truncate', 'lo_truncate64', 'lo_unlink',
                                     'pg_terminate_backend', 'pg_cancel_backend', 'pg_notify'))
  LOOP
    BEGIN
      EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', fn);
      IF fn::text LIKE '%advisory%' OR fn::text LIKE 'pg_notify(%' THEN
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %I', fn, app);
      END IF;
    EXCEPTION WHEN insufficient_privilege THEN
      -- Only a superuser may change the built-ins' privileges: with an owner that is not one, say so.
      RAISE WARNING 'could not take % from PUBLIC: the database owner is not a superuser', fn;
    END;
  END LOOP;
  BEGIN
    EXECUTE format('ALTER ROLE %I SET temp_file_limit = %L', worker, '64MB');
  EXCEPTION WHEN insufficient_privilege THEN
    RAISE WARNING 'could not cap the worker role''s temporary files: the database owner is not a superuser';
  END;
END $$;
