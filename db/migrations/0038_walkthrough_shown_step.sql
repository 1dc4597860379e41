-- The walkthrough step the trainer is showing (issue 21): a watcher's page shows this step, never the
-- one the lab's events suggest (a lease that ran out by itself is the next step's fact while the
-- trainer still tells the one before). Kept with the run it was shown in: a reset moves the lab to
-- its next run (labs.generation, 0008), and a step of an earlier run is no step at all.
ALTER TABLE labs
  ADD COLUMN shown_step integer CHECK (shown_step BETWEEN 0 AND 99),
  ADD COLUMN shown_step_generation bigint;

DO $$
BEGIN
  EXECUTE format('GRANT UPDATE (shown_step, shown_step_generation) ON labs TO %I', fencing_lab_role('app'));
END $$;
