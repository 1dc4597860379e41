-- execute: app
-- True when `worker_generation` is the lab's current run; otherwise raises FL007. It first takes the
-- lab's generation lock in shared mode, held until the caller's transaction ends; a reset takes the
-- same lock exclusively before it bumps the generation and holds it to its commit. So a worker's
-- statement that passes this check runs, and commits, entirely before a reset or entirely after it:
-- a reset waits for the worker's transaction, and a worker that comes during a reset waits for it,
-- then reads the new generation (each statement of a volatile function reads the latest commits)
-- and is refused. Statements call it in their own WHERE clause, so the check and the act are one
-- statement, never a read and then an act.
--
-- Lock order, to never deadlock with a reset: this lock comes before any row lock in a worker's
-- transaction (a WHERE clause is evaluated on the row before the row is locked), and before the
-- events lock (0009); the reset takes it first too.
CREATE OR REPLACE FUNCTION lab_generation_current(lab_id text, worker_generation bigint) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  current_generation bigint;
BEGIN
  PERFORM pg_advisory_xact_lock_shared(hashtext('fencing_lab.generation'), hashtext(lab_id));
  SELECT generation INTO current_generation FROM labs WHERE id = lab_id;
  IF current_generation IS DISTINCT FROM worker_generation THEN
    RAISE EXCEPTION 'the lab % was reset since this worker joined it (it joined run %, the lab is on run %)',
      lab_id, worker_generation, coalesce(current_generation::text, 'none')
      USING ERRCODE = 'FL007';
  END IF;
  RETURN true;
END $$;
