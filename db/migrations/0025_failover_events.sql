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
