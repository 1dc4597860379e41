-- execute: owner
-- guard_write's body, the same for every lab: the statement is not in it (pg_proc.prosrc is readable by
-- every role, the worker role's room included) but in the lab's one-row guard_statement, which only the
-- lab's role may read. $1 value, $2 token, $3 row id; it returns the rows the statement changed.
CREATE OR REPLACE FUNCTION fl_guard_body() RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT 'DECLARE changed_rows integer; BEGIN '
         'EXECUTE (SELECT g.statement FROM guard_statement g) USING $1, $2, $3; '
         'GET DIAGNOSTICS changed_rows = ROW_COUNT; RETURN changed_rows; END'
$$;
