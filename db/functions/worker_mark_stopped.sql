-- execute: worker
CREATE OR REPLACE FUNCTION worker_mark_stopped(p_lab text, p_name text, p_instance text) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  UPDATE remote_workers SET stopped_at = clock_timestamp(), phase = 'stopped'
   WHERE lab = p_lab AND name = p_name AND instance = p_instance AND stopped_at IS NULL
$$;
