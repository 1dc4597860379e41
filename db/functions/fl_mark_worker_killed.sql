-- execute: app
-- The server that SIGKILLed a worker's process says so in its row (the process cannot any more).
CREATE OR REPLACE FUNCTION fl_mark_worker_killed(p_lab text, p_name text, p_worker_pid integer) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  UPDATE remote_workers SET stopped_at = clock_timestamp(), phase = 'crashed'
   WHERE lab = p_lab AND name = p_name AND (server ->> 'workerPid')::int = p_worker_pid AND stopped_at IS NULL
$$;
