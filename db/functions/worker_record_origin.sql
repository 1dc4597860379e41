-- execute: worker
-- Once per join. p_origin: null for a worker started by hand; for one an app server started, that
-- server's run and the worker's own pid ({pid, startTicks, bootId, workerPid}). A server SIGKILLs
-- only a process it started itself (lib/supervisor/local-workers.ts), so a false origin kills nothing; its
-- shape and size are still checked. Ids ("w1") are handed out one at a time per lab; a restart in the
-- same run of the lab keeps its id. Returns the id, null for a worker started by hand.
CREATE OR REPLACE FUNCTION worker_record_origin(p_lab text, p_name text, p_instance text, p_origin jsonb) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  id text;
BEGIN
  IF p_origin IS NOT NULL AND (jsonb_typeof(p_origin) <> 'object'
      OR octet_length(p_origin::text) > fl_bound('worker_origin_max_bytes')
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
