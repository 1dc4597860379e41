-- execute: owner
-- A lease TTL a worker asks for, at a grant or a renewal, within the Start form's bounds (fl_bound,
-- from lib/model/core/input-bounds.ts): the worker line gets no longer lease than the form does.
CREATE OR REPLACE FUNCTION worker_check_ttl(p_ttl_ms double precision) RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  low numeric := public.fl_bound('lease_ttl_ms_min');
  high numeric := public.fl_bound('lease_ttl_ms_max');
BEGIN
  IF p_ttl_ms IS NULL OR p_ttl_ms <> trunc(p_ttl_ms) THEN
    RAISE EXCEPTION 'lease TTL must be a whole number of milliseconds' USING ERRCODE = '22023';
  END IF;
  IF p_ttl_ms < low THEN
    RAISE EXCEPTION 'lease TTL must be at least % ms', low USING ERRCODE = '22023';
  END IF;
  IF p_ttl_ms > high THEN
    RAISE EXCEPTION 'lease TTL must be at most % ms', high USING ERRCODE = '22023';
  END IF;
END $$;
