-- Labs as instances: the six shared labs, and private labs that one browser opens for itself,
-- each on a row, a lease and a history of its own.
CREATE TABLE labs (
  id          text PRIMARY KEY CHECK (id ~ '^[a-z0-9-]{1,40}$'),
  kind        text NOT NULL CHECK (kind IN ('fenced', 'no-fencing', 'read-check-write', 'token-as-text',
                                            'per-process-counter', 'bypass')),
  row_id      integer NOT NULL,
  resource    text NOT NULL UNIQUE,
  visibility  text NOT NULL CHECK (visibility IN ('shared', 'private')),
  -- sha256 of the secret the owner's browser holds; only private labs have an owner.
  owner_hash  text,
  -- The token-as-text lab's own token counter (the last one handed out): staged so that the second
  -- grant crosses a digit ('10' < '9' as text). Set back to 8 when the lab is reset.
  text_epoch  bigint NOT NULL DEFAULT 8,
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  closed_at   timestamptz,
  CHECK ((visibility = 'private') = (owner_hash IS NOT NULL))
);

INSERT INTO labs (id, kind, row_id, resource, visibility) VALUES
  ('fenced', 'fenced', 1, 'lab/fenced', 'shared'),
  ('no-fencing', 'no-fencing', 1, 'lab/no-fencing', 'shared'),
  ('read-check-write', 'read-check-write', 2, 'lab/read-check-write', 'shared'),
  ('token-as-text', 'token-as-text', 3, 'lab/token-as-text', 'shared'),
  ('per-process-counter', 'per-process-counter', 4, 'lab/per-process-counter', 'shared'),
  ('bypass', 'bypass', 5, 'lab/bypass', 'shared');

-- Carry on from where the old text-lab sequence stood.
UPDATE labs SET text_epoch = (SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM text_lab_epoch)
 WHERE id = 'token-as-text';
DROP SEQUENCE text_lab_epoch;

-- Private broken labs take their unguarded row from here (the shared ones use 1..5).
CREATE SEQUENCE unguarded_row_ids AS integer START WITH 1001;

CREATE INDEX events_lab_at ON events (lab, at);
