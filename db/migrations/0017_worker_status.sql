-- One control path for every worker (issue 11). The row a remote worker kept in remote_workers is now
-- every worker's status row: the workers an app server starts join and beat there too, and take their
-- commands from worker_commands like the ones started by hand. What only a server-started worker has:
--   worker_id      the lab's own short id for it ("w1"), handed out at its first join in a run of the
--                  lab and kept across its restarts; null for a worker started by hand (its name is its id);
--   id_generation  the run of the lab in which worker_id was handed out (a reset starts again at w1);
--   server         the run of the app server process that started it ({pid, startTicks, bootId} and the
--                  worker's own pid), so that the server that owns the process SIGKILLs it for a crash and
--                  any other server sends the crash as a command. Never shown to a browser.
ALTER TABLE remote_workers
  ADD COLUMN worker_id text CHECK (worker_id ~ '^w[1-9][0-9]*$'),
  ADD COLUMN id_generation bigint,
  ADD COLUMN server jsonb;
