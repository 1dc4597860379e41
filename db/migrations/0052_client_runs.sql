-- The class wall lists clients too (issue 36, item 6): every run of a person's own program as a lane
-- (`npm run worker -- --exec`), in any lab: which lab and lane, the program as its start named it
-- (`detail.exec`: the program and its script, never the rest of what was typed), who ran it (the
-- hash of the browser's owner secret: of the person the worker line was issued to, else the private
-- lab's owner; null for this server's own machine in a shared lab), how it ended (its stop's or
-- crash's reason, as the runner recorded it), and its history: the lab's events from its start to its
-- end (the newest 2,000), kept at its end, since the lab's own are cleared by the next reset.
--
-- Written by a trigger on events only (no role may write it), so a run is exactly what the lab's
-- history recorded. The session's role says whose line it is (session_user: a SECURITY DEFINER
-- function does not change it), never anything the program sent.
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
  end_kind    text CHECK (end_kind IN ('worker_stopped', 'worker_crashed', 'replaced')),
  reason      text CHECK (length(reason) <= 500),
  history     jsonb
);
CREATE INDEX client_runs_holder ON client_runs (holder, id);
CREATE INDEX client_runs_open ON client_runs (lab, actor) WHERE end_id IS NULL;
REVOKE ALL ON client_runs FROM PUBLIC;

-- The trigger on events that writes it: db/functions/client_runs_record.sql, with its function.

DO $$
BEGIN
  EXECUTE format('GRANT SELECT ON client_runs TO %I', fencing_lab_role('app'));
END $$;
