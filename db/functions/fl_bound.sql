-- execute: owner
-- A bound on what a client sends, by name, as lib/model/core/input-bounds.ts (WORKER_BOUNDS) has it:
-- the forms' zod schemas read that module, and db/apply-functions.ts writes it in place of the
-- empty object below at every start, so the database holds no second copy (issue 33 item 5). An
-- unknown name is a mistake in our own SQL.
CREATE OR REPLACE FUNCTION fl_bound(p_name text) RETURNS numeric
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  bound numeric := ('{}' /* WORKER_BOUNDS */::jsonb ->> p_name)::numeric;
BEGIN
  IF bound IS NULL THEN RAISE EXCEPTION 'no bound named %', p_name; END IF;
  RETURN bound;
END $$;
