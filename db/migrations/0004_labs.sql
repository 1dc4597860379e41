-- Labs: the fenced lab on protected_rows, and the deliberately broken labs on rows of their own.

-- Which lab a lease belongs to, so that its expiry can be recorded in that lab's history.
ALTER TABLE leases ADD COLUMN lab text NOT NULL DEFAULT 'main';

-- A lease's expiry is recorded once, whoever notices it first (the next taker, or the sweeper).
CREATE UNIQUE INDEX events_lease_expired_once ON events (resource, token) WHERE kind = 'lease_expired';

-- The broken labs' rows. No trigger, no guard: each broken lab writes them its own (wrong) way.
-- They can never hold protected data: the fenced lab writes protected_rows through db/guard.ts only.
CREATE TABLE unguarded_rows (
  id              integer PRIMARY KEY,
  lab             text NOT NULL UNIQUE,
  value           text NOT NULL,
  last_token      bigint NOT NULL DEFAULT 0,
  last_token_text text NOT NULL DEFAULT '0',
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- The token-as-text lab mints from a sequence of its own that starts at 9, so that its second
-- grant crosses from one digit to two ('10' < '9' as text). Restarted when that lab is reset;
-- write_epoch, the real token source, is never reset.
CREATE SEQUENCE text_lab_epoch AS bigint START WITH 9 MINVALUE 1;
