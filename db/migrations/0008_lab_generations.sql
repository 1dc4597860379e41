-- A reset is final for every worker. Each lab counts its runs: a reset bumps labs.generation in the
-- same transaction that clears its lease, row and history (lib/supervisor/lab-reset.ts). A worker carries
-- the generation it joined, and every lease, write and event statement it sends checks it in that
-- same statement. A worker that joined before the last reset is refused by the database itself,
-- whether or not it heard of the reset (a laptop asleep, a process stopped with SIGSTOP).
ALTER TABLE labs ADD COLUMN generation bigint NOT NULL DEFAULT 1 CHECK (generation > 0);

-- The run a remote worker joined: its heartbeat is refused once the lab has moved on.
ALTER TABLE remote_workers ADD COLUMN generation bigint NOT NULL DEFAULT 1;

-- The run of the worker that wrote an event; null for what the server records itself (the
-- supervisor's starts and stops, the expiry sweep), which is never from a stale worker.
ALTER TABLE events ADD COLUMN generation bigint;

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
CREATE FUNCTION lab_generation_current(lab_id text, worker_generation bigint) RETURNS boolean
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

-- A reset's side of it: the exclusive lock, then the next generation. Call it first in the reset's
-- transaction. Returns the new generation.
CREATE FUNCTION lab_generation_bump(lab_id text) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  next_generation bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('fencing_lab.generation'), hashtext(lab_id));
  UPDATE labs SET generation = generation + 1 WHERE id = lab_id RETURNING generation INTO next_generation;
  RETURN next_generation;
END $$;
