-- execute: owner
-- The names, made here only (the app never passes one in).
CREATE OR REPLACE FUNCTION fl_guard_schema(p_lab text) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT 'guard_' || replace(p_lab, '-', '_')
$$;
