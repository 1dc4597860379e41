-- The failover lab's history (issue 13 part 1). The lab's lease, token sequence and protected row
-- live on a primary/standby pair of the lab's own, which the story kills and promotes; what
-- happened there is recorded here, in the app's database, so that the record survives the failover
-- it describes. One row per step, in the order the lab saw them; `run` groups one story.
CREATE TABLE failover_steps (
  id bigserial PRIMARY KEY,
  run uuid NOT NULL,
  step jsonb NOT NULL CHECK (jsonb_typeof(step) = 'object' AND step ? 'kind'),
  recorded_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX failover_steps_run ON failover_steps (run, id);

DO $$
BEGIN
  EXECUTE format('GRANT SELECT, INSERT ON failover_steps TO %I', fencing_lab_role('app'));
  EXECUTE format('GRANT USAGE ON SEQUENCE failover_steps_id_seq TO %I', fencing_lab_role('app'));
END $$;
