-- The class wall lists clients too (issue 36, item 6): every run of a person's own program as a lane
-- (`npm run worker -- --exec`), in any lab: which lab and lane, the program as its start named it
-- (`detail.exec`: the program and its script, never the rest of what was typed), who ran it (the
-- hash of the browser's owner secret: of the person the worker line was issued to, else the private
-- lab's owner; null for this server's own machine in a shared lab), and how it ended (its stop's or
-- crash's reason, as the runner recorded it). Its history is the lab's events between its start and
-- its end (start_id, end_id), read from the lab while they are there: a reset clears them. What it
-- did wrong (`faults`) is worked out once by the app from its own events after its end and kept.
--
-- Written by a trigger on events only (no role may write a run; the app its faults), so a run is
-- exactly what the lab's history recorded. The session's role says whose line it is (session_user:
-- a SECURITY DEFINER function does not change it), never anything the program sent. The trigger
-- copies nothing: it runs inside a line's own call, under the lab's events lock.
CREATE TABLE client_runs (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  lab         text NOT NULL,
  kind        text NOT NULL,
  actor       text NOT NULL,
  program     text NOT NULL CHECK (length(program) <= 200),
  holder      text,
  start_id    bigint NOT NULL,
  started_at  timestamptz NOT NULL,
  end_id      bigint,
  ended_at    timestamptz,
  end_kind    text CHECK (end_kind IN ('worker_stopped', 'worker_crashed', 'replaced', 'restarted')),
  reason      text CHECK (length(reason) <= 500),
  faults      jsonb CHECK (faults IS NULL OR octet_length(faults::text) <= 4000)
);
CREATE INDEX client_runs_holder ON client_runs (holder, id);
CREATE INDEX client_runs_open ON client_runs (lab, actor) WHERE end_id IS NULL;
REVOKE ALL ON client_runs FROM PUBLIC;

-- The trigger on events that writes it: db/functions/client_runs_record.sql, with its function.

DO $$
BEGIN
  EXECUTE format('GRANT SELECT, UPDATE (faults) ON client_runs TO %I', fencing_lab_role('app'));
END $$;
