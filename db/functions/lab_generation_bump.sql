-- execute: app
-- A reset's side of it: the exclusive lock, then the next generation. Call it first in the reset's
-- transaction. Returns the new generation.
CREATE OR REPLACE FUNCTION lab_generation_bump(lab_id text) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  next_generation bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('fencing_lab.generation'), hashtext(lab_id));
  UPDATE labs SET generation = generation + 1 WHERE id = lab_id RETURNING generation INTO next_generation;
  RETURN next_generation;
END $$;
