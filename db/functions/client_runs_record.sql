-- execute: owner
-- The class wall's clients (issue 36, item 6; 0052_client_runs.sql): a run of a person's own program
-- as a lane, written from the lab's events alone. A start whose detail names a program (`exec`) opens
-- a run; any later start, stop or crash of the name ends the open one: a stop or crash with its reason
-- and the lab's events from the run's start to its end (the newest 2,000), our own worker started under
-- the name as replaced. Whose run it is: the worker line's person (session_user, which SECURITY
-- DEFINER does not change), else the private lab's owner. Its trigger is made here, once, with it.
CREATE OR REPLACE FUNCTION client_runs_record() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  run client_runs%ROWTYPE;
  lab_kind text;
  lab_owner text;
  who text;
  ended bigint;
BEGIN
  -- Any start or end of the name ends its open run: a stop or crash with its reason, our own worker
  -- started under the name (or the program started again) as replaced, with nothing more to keep.
  SELECT * INTO run FROM client_runs WHERE lab = NEW.lab AND actor = NEW.actor AND end_id IS NULL
   ORDER BY id DESC LIMIT 1 FOR UPDATE;
  IF FOUND THEN
    IF NEW.kind IN ('worker_stopped', 'worker_crashed') THEN
      UPDATE client_runs
         SET end_id = NEW.id, ended_at = NEW.at, end_kind = NEW.kind,
             reason = left(coalesce(NEW.detail ->> 'reason', ''), 500),
             history = (SELECT coalesce(jsonb_agg(to_jsonb(e) - 'lab' ORDER BY e.id), '[]'::jsonb)
                          FROM (SELECT * FROM events
                                 WHERE lab = NEW.lab AND id BETWEEN run.start_id AND NEW.id
                                 ORDER BY id DESC LIMIT 2000) AS e)
       WHERE id = run.id;
    ELSE
      UPDATE client_runs SET end_id = NEW.id - 1, ended_at = NEW.at, end_kind = 'replaced' WHERE id = run.id;
    END IF;
    ended := run.id;
    PERFORM pg_notify('fencing_client_runs', json_build_object('id', ended)::text);
  END IF;
  IF NEW.kind IN ('worker_started', 'worker_restarted') AND jsonb_typeof(NEW.detail -> 'exec') = 'string' THEN
    SELECT kind, owner_hash INTO lab_kind, lab_owner FROM labs WHERE id = NEW.lab;
    SELECT holder INTO who FROM worker_lines WHERE role_name = session_user;
    INSERT INTO client_runs (lab, kind, actor, program, holder, start_id, started_at)
    VALUES (NEW.lab, coalesce(lab_kind, ''), NEW.actor, left(NEW.detail ->> 'exec', 200), coalesce(who, lab_owner),
            NEW.id, NEW.at)
    RETURNING * INTO run;
    -- A person's newest 20 runs, the room's newest 1,000: a loop of starts fills no one's wall but its own.
    DELETE FROM client_runs
     WHERE holder IS NOT DISTINCT FROM run.holder
       AND id < (SELECT id FROM client_runs WHERE holder IS NOT DISTINCT FROM run.holder ORDER BY id DESC OFFSET 19 LIMIT 1);
    DELETE FROM client_runs WHERE id < (SELECT id FROM client_runs ORDER BY id DESC OFFSET 999 LIMIT 1);
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
