-- execute: owner
CREATE OR REPLACE FUNCTION fl_guard_role(p_lab text) RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT 'fencing_guard_' || replace(p_lab, '-', '_') || '_' || left(md5(current_database()), 8)
$$;
