-- execute: owner
-- The run of the lab the worker joined, if (lab, name, instance) is a worker of the lab's current
-- run; otherwise FL008 (not joined, or another run took the name over) or FL007 (reset since). Takes
-- the lab's generation lock in shared mode first, as every worker statement does (0008).
CREATE OR REPLACE FUNCTION worker_generation(p_lab text, p_name text, p_instance text) RETURNS bigint
LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
DECLARE
  joined bigint;
BEGIN
  SELECT r.generation INTO joined FROM remote_workers r
   WHERE r.lab = p_lab AND r.name = p_name AND r.instance = p_instance AND r.stopped_at IS NULL;
  IF joined IS NULL THEN
    RAISE EXCEPTION 'no running worker % with this instance in the lab % (join the lab first)', p_name, p_lab
      USING ERRCODE = 'FL008';
  END IF;
  PERFORM lab_generation_current(p_lab, joined);
  RETURN joined;
END $$;
