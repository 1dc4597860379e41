-- execute: owner
-- Events ordered per lab, not globally. 0002 took ONE advisory lock for every event insert, held
-- until commit, so that ids are in commit order: every lab waited on every other lab's commit
-- (its WAL flush). The lock is now keyed by the lab: inserts into different labs no longer wait on
-- each other, and inserts into one lab still do.
--
-- Why "id > last seen" still never skips an event for a reader of ONE lab (every reader of events
-- reads one lab: lib/server/lab-hub.ts, db/events.ts listEvents):
--   * an event's id is drawn from events_id_seq only after its transaction holds its lab's lock,
--     and that lock is held until the transaction commits or rolls back;
--   * so two transactions that insert into the same lab hold that lock one after the other: the
--     first draws its ids and commits before the second draws any. Within a lab, a larger id
--     always commits later, so once a reader has seen id N of a lab, no event of that lab with an
--     id below N can still commit.
--   * ids of different labs interleave and may commit out of id order: no reader mixes labs.
--   * a transaction inserting into several labs (the expiry recorder's pass) takes their locks in one order
--     (it inserts ordered by the lock's key, see recordExpiredLeases in db/leases.ts), so two of
--     them never deadlock.
-- clearEvents (db/events.ts) takes the same per-lab lock, so a reset's boundary (`upTo`) still
-- splits the lab's events exactly.
--
-- The lock is the two-key form (class, lab): it never collides with 0002's one-key lock, nor with
-- the migration lock. Two labs whose names hash alike share a lock: they wait on each other, no more.
--
-- An event written by a worker (generation set) is also refused here when the lab was reset since
-- that worker joined (see 0008), in the insert's own statement, before it takes an id (the
-- generation lock before the events lock, as a reset takes them).
--
-- One end of a worker's life is recorded once (issue 33). kill -9 of an app server has three
-- recorders of its worker's end at about the same moment: the worker on its lifeline's end
-- (lib/worker/listener.ts), the worker again on the launcher's SIGTERM (lib/worker/main.ts), and the
-- next server's start (lib/jobs/orphaned-workers.ts); each checked "does its history say it runs?"
-- apart from its insert, and two of them recorded worker_stopped. Here, under the lab's events lock
-- (so after any other insert into the lab has committed, and read in a snapshot taken after it),
-- a stop or a crash of a worker whose last lifecycle event in the lab is already a stop or a crash
-- is not inserted: the statement succeeds and inserts nothing. The lab's events are its current run
-- only (a reset deletes them), and a start after the end begins a new life with an end of its own.
CREATE OR REPLACE FUNCTION events_assign_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.generation IS NOT NULL THEN
    PERFORM lab_generation_current(NEW.lab, NEW.generation);
  END IF;
  PERFORM pg_advisory_xact_lock(hashtext('fencing_lab.events'), hashtext(NEW.lab));
  IF NEW.kind IN ('worker_stopped', 'worker_crashed')
     AND (SELECT e.kind FROM events e
           WHERE e.lab = NEW.lab AND e.actor = NEW.actor
             AND e.kind IN ('worker_started', 'worker_restarted', 'worker_stopped', 'worker_crashed')
           ORDER BY e.id DESC LIMIT 1) IN ('worker_stopped', 'worker_crashed') THEN
    RETURN NULL;
  END IF;
  NEW.id := nextval('events_id_seq');
  NEW.at := clock_timestamp();
  RETURN NEW;
END $$;
