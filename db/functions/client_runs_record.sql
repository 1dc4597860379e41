-- execute: owner
-- The class wall's clients (issue 36, item 6; 0052_client_runs.sql): a run of a person's own program
-- as a lane, written from the lab's events alone. A start whose detail names a program (`exec`) opens
-- a run; any later start, stop or crash of the name ends the open one. A stop or crash ends it with
-- its reason only when it comes from the run's own person (their line) or from the app or this
-- server's machine: another line that took the name after it went quiet replaces it, saying nothing
-- for it. The same person's program started again is `restarted`; anything else `replaced`. Whose
-- run it is: the worker line's person (session_user, which SECURITY DEFINER does not change), else
-- the private lab's owner. It copies no event (it runs inside a line's call, under the lab's events
-- lock) and trims only the caller's own person's runs, to their newest 20.
-- Its trigger is made once, below: a change to it needs a migration that drops it (db/client-runs.test.ts).
CREATE OR REPLACE FUNCTION client_runs_record() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  run client_runs%ROWTYPE;
  lab_kind text;
  lab_owner text;
  line_holder text;
  starts boolean := NEW.kind IN ('worker_started', 'worker_restarted') AND jsonb_typeof(NEW.detail -> 'exec') = 'string';
BEGIN
  SELECT holder INTO line_holder FROM worker_lines WHERE role_name = session_user;
  SELECT kind, owner_hash INTO lab_kind, lab_owner FROM labs WHERE id = NEW.lab;
  SELECT * INTO run FROM client_runs WHERE lab = NEW.lab AND actor = NEW.actor AND end_id IS NULL
   ORDER BY id DESC LIMIT 1 FOR UPDATE;
  IF FOUND THEN
    IF NEW.kind IN ('worker_stopped', 'worker_crashed')
       AND (line_holder IS NULL OR line_holder IS NOT DISTINCT FROM run.holder) THEN
      UPDATE client_runs
         SET end_id = NEW.id, ended_at = NEW.at, end_kind = NEW.kind,
             reason = left(coalesce(NEW.detail ->> 'reason', ''), 500)
       WHERE id = run.id;
    ELSE
      UPDATE client_runs
         SET end_id = NEW.id, ended_at = NEW.at,
             end_kind = CASE WHEN starts AND coalesce(line_holder, lab_owner) IS NOT DISTINCT FROM run.holder
                             THEN 'restarted' ELSE 'replaced' END
       WHERE id = run.id;
    END IF;
    PERFORM pg_notify('fencing_client_runs', json_build_object('id', run.id)::text);
  END IF;
  IF starts THEN
    INSERT INTO client_runs (lab, kind, actor, program, holder, start_id, started_at)
    VALUES (NEW.lab, coalesce(lab_kind, ''), NEW.actor, left(NEW.detail ->> 'exec', 200),
            coalesce(line_holder, lab_owner), NEW.id, NEW.at)
    RETURNING * INTO run;
    -- A person's newest 20 runs: a loop of starts fills no one's wall but its own.
    DELETE FROM client_runs
     WHERE holder IS NOT DISTINCT FROM run.holder
       AND id < (SELECT id FROM client_runs WHERE holder IS NOT DISTINCT FROM run.holder ORDER BY id DESC OFFSET 19 LIMIT 1);
    PERFORM pg_notify('fencing_client_runs', json_build_object('id', run.id)::text);
  END IF;
  RETURN NULL;
END $$;

DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_trigger WHERE tgname = 'client_runs_record' AND tgrelid = 'events'::regclass) THEN
    CREATE TRIGGER client_runs_record AFTER INSERT ON events FOR EACH ROW
      WHEN (NEW.kind IN ('worker_started', 'worker_restarted', 'worker_stopped', 'worker_crashed'))
      EXECUTE FUNCTION client_runs_record();
  END IF;
END $$;
