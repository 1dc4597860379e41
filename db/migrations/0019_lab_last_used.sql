-- When a private lab was last used (a command, an open, a feed opening or closing), on the database's
-- clock: every app server on the database records its use here, so that the idle sweep of any of
-- them judges a lab by its use through all of them, not only through itself (issue 11).
ALTER TABLE labs ADD COLUMN last_used_at timestamptz;

-- The labs open now were in use as far as anyone knows: they get the whole idle limit from here.
UPDATE labs SET last_used_at = now() WHERE visibility = 'private' AND closed_at IS NULL;

DO $$
BEGIN
  EXECUTE format('GRANT UPDATE (last_used_at) ON labs TO %I', fencing_lab_role('app'));
END $$;
