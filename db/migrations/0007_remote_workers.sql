-- Remote workers: `npm run worker` on another machine joins a lab through this database alone.
-- The server cannot reach that machine, so both directions go through here: the worker beats its
-- state into remote_workers every second, and the trainer's commands wait for it in worker_commands.
CREATE TABLE remote_workers (
  lab            text NOT NULL REFERENCES labs (id),
  name           text NOT NULL CHECK (length(name) BETWEEN 1 AND 40),
  -- One run of the program: a later run under the same name takes the row over, and the earlier
  -- one (a laptop that slept past its heartbeat) finds out from its next heartbeat and stops.
  instance       text NOT NULL,
  settings       jsonb NOT NULL,
  phase          text NOT NULL,
  token          bigint,
  believed_until timestamptz,
  armed          boolean NOT NULL DEFAULT false,
  started_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- The database's clock, never the worker's: the machines' clocks need not agree.
  heartbeat_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  stopped_at     timestamptz,
  PRIMARY KEY (lab, name)
);

CREATE TABLE worker_commands (
  id          bigserial PRIMARY KEY,
  lab         text NOT NULL,
  worker      text NOT NULL,
  command     text NOT NULL CHECK (command IN ('pause-now', 'arm-critical-pause', 'cancel-pauses', 'resume',
                                               'crash', 'stop')),
  -- How long a pause lasts once it strikes; null: until resumed.
  seconds     double precision CHECK (seconds IS NULL OR seconds > 0),
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  taken_at    timestamptz,
  FOREIGN KEY (lab, worker) REFERENCES remote_workers (lab, name)
);
CREATE INDEX worker_commands_pending ON worker_commands (lab, worker, id) WHERE taken_at IS NULL;

-- The worker LISTENs and takes its commands at once; it also polls every second, so a lost
-- notification (its connection was down) only delays a command.
CREATE FUNCTION worker_commands_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('fencing_worker_commands', json_build_object('lab', NEW.lab, 'worker', NEW.worker)::text);
  RETURN NULL;
END $$;
CREATE TRIGGER worker_commands_notify AFTER INSERT ON worker_commands
  FOR EACH ROW EXECUTE FUNCTION worker_commands_notify();
