-- Limits a script cannot walk through, and closed private labs that do not pile up.

-- The client address that opened a private lab: opening labs is rate-limited per address, counted
-- in the same locked transaction that inserts the lab (db/labs.ts createPrivateLab).
ALTER TABLE labs ADD COLUMN opened_from text;
CREATE INDEX labs_opened_from ON labs (opened_from, created_at) WHERE visibility = 'private';
CREATE INDEX labs_open_private ON labs (owner_hash) WHERE visibility = 'private' AND closed_at IS NULL;

-- When a closed private lab's history (events, remote workers, its unguarded row) was deleted after
-- the retention. The lab's record stays, as does a fenced lab's protected row: protected rows are
-- never deleted, and the record keeps that row off the pages everyone sees.
ALTER TABLE labs ADD COLUMN history_deleted_at timestamptz;
CREATE INDEX labs_closed_private ON labs (closed_at) WHERE visibility = 'private' AND history_deleted_at IS NULL;

-- Closed labs hold no lease: release the ones closed before this migration.
DELETE FROM leases l USING labs b WHERE b.resource = l.resource AND b.closed_at IS NOT NULL;
