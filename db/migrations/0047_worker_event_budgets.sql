-- Issue 33 item 7: a trainee holding the room's worker line recorded 2,903 events in 5 s from one
-- connection, each with about 19 kB of detail. What a worker records itself (worker_record_event) is
-- now rate-limited per worker name per lab, in the database: a token bucket per (lab, name), kept
-- here, that fl_take_event_budget refills and spends (bounds: fl_bound, from
-- lib/model/core/input-bounds.ts); and so are its calls that record an event of the lab's own (a
-- grant, a renewal, a release, a write), in a bucket of their own, or a renewal in a tight loop would
-- flood the history as well. Kept across joins, so that joining again does not refill them. Only
-- the owner (the SECURITY DEFINER functions) reads or writes it. The built-ins that let the worker
-- role write volume (pg_logical_emit_message, large objects) are revoked at every start
-- (fl_revoke_worker_volume, called by db/migrate.ts), not here.
CREATE TABLE worker_event_budgets (
  lab    text NOT NULL REFERENCES labs (id) ON DELETE CASCADE,
  name   text NOT NULL,
  -- 'told': what it records itself (worker_record_event); 'calls': its leases and writes.
  budget text NOT NULL CHECK (budget IN ('told', 'calls')),
  -- Events the worker may still record at once, as of `at`.
  tokens double precision NOT NULL,
  at     timestamptz NOT NULL,
  PRIMARY KEY (lab, name, budget)
);
