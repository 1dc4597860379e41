-- execute: worker
-- The heartbeat with the worker's state. Returns why it must stop, if it must.
CREATE OR REPLACE FUNCTION worker_beat(p_lab text, p_name text, p_instance text, p_phase text, p_token bigint,
                            p_believed_until timestamptz, p_armed boolean) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  closed boolean;
BEGIN
  IF length(p_phase) > 20 THEN RAISE EXCEPTION 'unknown phase' USING ERRCODE = '22023'; END IF;
  UPDATE remote_workers r
     SET heartbeat_at = clock_timestamp(), phase = p_phase, token = p_token, believed_until = p_believed_until,
         armed = coalesce(p_armed, false)
    FROM labs l
   WHERE r.lab = p_lab AND r.name = p_name AND l.id = r.lab AND r.instance = p_instance AND r.stopped_at IS NULL
     AND r.generation = l.generation
  RETURNING l.closed_at IS NOT NULL INTO closed;
  IF closed IS NULL THEN
    IF EXISTS (SELECT 1 FROM remote_workers r JOIN labs l ON l.id = r.lab
                WHERE r.lab = p_lab AND r.name = p_name AND r.instance = p_instance
                  AND r.generation <> l.generation) THEN
      RETURN 'reset';
    END IF;
    RETURN 'taken_over';
  END IF;
  IF closed THEN RETURN 'closed'; END IF;
  RETURN NULL;
END $$;
