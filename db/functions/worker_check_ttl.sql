-- execute: owner
CREATE OR REPLACE FUNCTION worker_check_ttl(p_ttl_ms double precision) RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF p_ttl_ms IS NULL OR p_ttl_ms <> trunc(p_ttl_ms) OR p_ttl_ms < 100 OR p_ttl_ms > 600000 THEN
    RAISE EXCEPTION 'lease TTL must be a whole number of milliseconds from 100 to 600000' USING ERRCODE = '22023';
  END IF;
END $$;
