-- The one control path (issue 11) through the worker's door: what a worker adds to its status row at
-- its join (which server started it, and the lab's short id for it) and at a crash it was told to
-- make, as functions of the worker role like the rest of its door (0016); and the app server's word
-- that it SIGKILLed a worker's process, which the app role may not write into the row itself.

-- Once per join. p_origin: null for a worker started by hand; for one an app server started, that
-- server's run and the worker's own pid ({pid, startTicks, bootId, workerPid}). A server SIGKILLs
-- only a process it started itself (lib/supervisor/local-workers.ts), so a false origin kills nothing; its
-- shape and size are still checked. Ids ("w1") are handed out one at a time per lab; a restart in the
-- same run of the lab keeps its id. Returns the id, null for a worker started by hand.
CREATE FUNCTION worker_record_origin(p_lab text, p_name text, p_instance text, p_origin jsonb) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  id text;
BEGIN
  IF p_origin IS NOT NULL AND (jsonb_typeof(p_origin) <> 'object'
      OR octet_length(p_origin::text) > 500
      OR jsonb_typeof(p_origin -> 'pid') <> 'number'
      OR jsonb_typeof(p_origin -> 'workerPid') <> 'number'
      OR jsonb_typeof(p_origin -> 'startTicks') <> 'string') THEN
    RAISE EXCEPTION 'an origin names a server run and the worker''s pid' USING ERRCODE = '22023';
  END IF;
  PERFORM worker_generation(p_lab, p_name, p_instance);
  PERFORM pg_advisory_xact_lock(hashtextextended('fencing_lab.worker_ids.' || p_lab, 0));
  UPDATE remote_workers r
     SET server = p_origin,
         worker_id = CASE WHEN p_origin IS NULL THEN NULL
           WHEN r.worker_id IS NOT NULL AND r.id_generation = r.generation THEN r.worker_id
           ELSE 'w' || (1 + COALESCE((SELECT max(substring(o.worker_id FROM 2)::int) FROM remote_workers o
                                       WHERE o.lab = r.lab AND o.id_generation = r.generation
                                         AND o.name <> r.name), 0)) END,
         id_generation = CASE WHEN p_origin IS NULL THEN NULL ELSE r.generation END
   WHERE r.lab = p_lab AND r.name = p_name AND r.instance = p_instance
  RETURNING r.worker_id INTO id;
  RETURN id;
END $$;

-- The worker's listener, told to crash, marks its row crashed just before it SIGKILLs its process.
CREATE FUNCTION worker_mark_crashed(p_lab text, p_name text, p_instance text) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  UPDATE remote_workers SET stopped_at = clock_timestamp(), phase = 'crashed'
   WHERE lab = p_lab AND name = p_name AND instance = p_instance AND stopped_at IS NULL
$$;

-- The server that SIGKILLed a worker's process says so in its row (the process cannot any more).
CREATE FUNCTION fl_mark_worker_killed(p_lab text, p_name text, p_worker_pid integer) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  UPDATE remote_workers SET stopped_at = clock_timestamp(), phase = 'crashed'
   WHERE lab = p_lab AND name = p_name AND (server ->> 'workerPid')::int = p_worker_pid AND stopped_at IS NULL
$$;

DO $$
BEGIN
  EXECUTE format('GRANT EXECUTE ON FUNCTION worker_record_origin(text, text, text, jsonb) TO %I',
                 fencing_lab_role('worker'));
  EXECUTE format('GRANT EXECUTE ON FUNCTION worker_mark_crashed(text, text, text) TO %I', fencing_lab_role('worker'));
  EXECUTE format('GRANT EXECUTE ON FUNCTION fl_mark_worker_killed(text, text, integer) TO %I', fencing_lab_role('app'));
END $$;
