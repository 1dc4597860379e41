-- A worker's lane, found at once (issue 33): its last lifecycle event (a start, a restart, a stop, a
-- crash) is what events_assign_id.sql reads to record one end of a life once, while it holds the
-- lab's events lock, and what a server reads to tell whether a worker's history says it runs
-- (db/worker-status.ts, db/worker-lives.ts). By (lab, id) alone that read walked back through every
-- later event of the lab: in a long history, the whole of it.
CREATE INDEX events_worker_lifecycle ON events (lab, actor, id)
  WHERE kind IN ('worker_started', 'worker_restarted', 'worker_stopped', 'worker_crashed');
