-- Lab kinds are data (issue 21): one row per kind with the traits the database's functions ask,
-- referenced by labs, instead of a CHECK that each new kind's migration rebuilt. Adding a kind is
-- a row here (in its own migration) and its writes below, not another copy of a function.
CREATE TABLE lab_kinds (
  id text PRIMARY KEY CHECK (id ~ '^[a-z0-9-]{1,40}$'),
  -- Which row the lab writes: the guard's protected_rows, or its own row in unguarded_rows.
  row_table text NOT NULL CHECK (row_table IN ('protected_rows', 'unguarded_rows')),
  -- A writer's token must be one it was granted in this lab (a lease_acquired event of its own, in
  -- its run): where the lease service can hand out one token twice, lease_grants cannot say it.
  own_grant_only boolean NOT NULL DEFAULT false,
  -- Tokens start at 8 at each reset, so that they soon cross from one digit to two (9 → 10).
  text_epoch boolean NOT NULL DEFAULT false,
  -- Workers may run a slow clock (clockSlowPercent) and ask the database whether their lease runs.
  drifting_clock boolean NOT NULL DEFAULT false,
  -- Where a writer's token comes from: the sequence, minted with each grant (fl_acquire_lease); the
  -- worker's own counter (it writes with that, not its grant's); or a lease service that keeps the old
  -- holder's token on a takeover (fl_broken_takeover_same_token).
  token_source text NOT NULL DEFAULT 'sequence' CHECK (token_source IN ('sequence', 'worker-counter', 'kept-on-takeover')),
  -- The lab runs workers (the failover lab tells its story without any).
  has_workers boolean NOT NULL DEFAULT true,
  -- The row is guarded by a statement the trainee wrote, run as the lab's own role (fl_install_guard).
  trainee_guard boolean NOT NULL DEFAULT false
);

-- The writes each kind has: the mode its writers name, the policy fl_may_write applies (or 'refused':
-- the write is decided against before it reaches the row), and how the event names the path.
CREATE TABLE lab_kind_writes (
  kind   text NOT NULL REFERENCES lab_kinds (id),
  mode   text NOT NULL,
  policy text NOT NULL CHECK (policy IN ('fenced', 'text', 'none', 'refused')),
  path   text NOT NULL,
  PRIMARY KEY (kind, mode)
);

INSERT INTO lab_kinds (id, row_table, own_grant_only, text_epoch, drifting_clock, token_source, has_workers,
                       trainee_guard) VALUES
  ('fenced', 'protected_rows', false, false, false, 'sequence', true, false),
  ('no-fencing', 'unguarded_rows', false, false, false, 'sequence', true, false),
  ('read-check-write', 'unguarded_rows', false, false, false, 'sequence', true, false),
  ('token-as-text', 'unguarded_rows', false, true, false, 'sequence', true, false),
  ('per-process-counter', 'unguarded_rows', false, false, false, 'worker-counter', true, false),
  ('bypass', 'unguarded_rows', false, false, false, 'sequence', true, false),
  ('same-token-takeover', 'unguarded_rows', true, false, false, 'kept-on-takeover', true, false),
  ('drifting-clock', 'unguarded_rows', false, false, true, 'sequence', true, false),
  ('drifting-clock-fenced', 'unguarded_rows', true, false, true, 'sequence', true, false),
  ('delayed-packet', 'unguarded_rows', false, false, false, 'sequence', true, false),
  ('delayed-packet-unfenced', 'unguarded_rows', false, false, false, 'sequence', true, false),
  ('failover', 'unguarded_rows', false, false, false, 'sequence', false, false),
  ('your-guard', 'unguarded_rows', false, true, false, 'sequence', true, true);

INSERT INTO lab_kind_writes (kind, mode, policy, path) VALUES
  ('fenced', 'fenced', 'fenced', 'fenced'),
  ('no-fencing', 'plain', 'none', 'no token check'),
  ('read-check-write', 'plain', 'none', 'checked in the app, written unconditionally'),
  ('read-check-write', 'checked-stale', 'refused', 'checked in the app'),
  ('token-as-text', 'text', 'text', 'compared as text'),
  ('per-process-counter', 'fenced', 'fenced', 'fenced'),
  ('bypass', 'fenced', 'fenced', 'fenced'),
  ('bypass', 'plain', 'none', 'catch-up path, bypasses the guard'),
  ('same-token-takeover', 'fenced', 'fenced', 'fenced'),
  ('drifting-clock', 'plain', 'none', 'no token check'),
  ('drifting-clock-fenced', 'fenced', 'fenced', 'fenced'),
  ('delayed-packet', 'packet', 'fenced', 'fenced'),
  ('delayed-packet-unfenced', 'packet', 'none', 'no token check');

ALTER TABLE labs DROP CONSTRAINT IF EXISTS labs_kind_check;
ALTER TABLE labs ADD CONSTRAINT labs_kind_fkey FOREIGN KEY (kind) REFERENCES lab_kinds (id);

-- The app reads the kinds (it never writes them); the worker role reads no table.
DO $$
BEGIN
  EXECUTE format('GRANT SELECT ON lab_kinds, lab_kind_writes TO %I', fencing_lab_role('app'));
END $$;
