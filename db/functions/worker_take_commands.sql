-- execute: worker
-- Takes the worker's waiting commands, oldest first; each is taken once, even by racing takers.
-- Only the run that holds the name takes them (a stop after a reset included).
CREATE OR REPLACE FUNCTION worker_take_commands(p_lab text, p_name text, p_instance text)
RETURNS TABLE (id bigint, command text, seconds double precision)
LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  UPDATE worker_commands c SET taken_at = clock_timestamp()
   WHERE c.id IN (SELECT w.id FROM worker_commands w
                   WHERE w.lab = p_lab AND w.worker = p_name AND w.taken_at IS NULL
                     AND EXISTS (SELECT 1 FROM remote_workers r
                                  WHERE r.lab = p_lab AND r.name = p_name AND r.instance = p_instance
                                    AND r.stopped_at IS NULL)
                   ORDER BY w.id FOR UPDATE SKIP LOCKED)
  RETURNING c.id, c.command, c.seconds
$$;
