-- The failover lab (issue 13 part 1) records its story in `events`, as the lab `failover`, like
-- every other lab: the live feed, the timeline, replay, export and the checker read it there. Its
-- lease, token sequence and row live on the lab's own primary/standby pair, never here; the lab's
-- row 8 of unguarded_rows only keeps its place among the labs' rows (nothing writes it). The table
-- of its first version (0024_failover_steps.sql) is retired.

DO $$
DECLARE
  def text;
BEGIN
  SELECT pg_get_constraintdef(c.oid) INTO def FROM pg_constraint c
   WHERE c.conname = 'labs_kind_check' AND c.conrelid = 'labs'::regclass;
  ALTER TABLE labs DROP CONSTRAINT labs_kind_check;
  EXECUTE format('ALTER TABLE labs ADD CONSTRAINT labs_kind_check CHECK (%s OR kind = %L)',
                 regexp_replace(def, '^CHECK ', ''), 'failover');
END $$;

INSERT INTO labs (id, kind, row_id, resource, visibility) VALUES ('failover', 'failover', 8, 'lab/failover', 'shared')
ON CONFLICT DO NOTHING;
INSERT INTO unguarded_rows (id, lab, value) VALUES (8, 'failover', 'initial')
ON CONFLICT DO NOTHING;

DROP TABLE failover_steps;

-- The failover lab has no workers: its holders are the app server's own sessions on its pair. The
-- app refuses a worker of it (lib/model/lab-inputs.ts); a worker that calls worker_join for it
-- directly is refused here, before any status row, lease or event of it exists.
CREATE FUNCTION fl_no_workers_in_failover() RETURNS trigger
LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM labs l WHERE l.id = NEW.lab AND l.kind = 'failover') THEN
    RAISE EXCEPTION 'the failover lab has no workers' USING ERRCODE = '42501';
  END IF;
  RETURN NEW;
END $$;
REVOKE EXECUTE ON FUNCTION fl_no_workers_in_failover() FROM PUBLIC;
CREATE TRIGGER remote_workers_not_in_failover BEFORE INSERT OR UPDATE ON remote_workers
  FOR EACH ROW EXECUTE FUNCTION fl_no_workers_in_failover();
