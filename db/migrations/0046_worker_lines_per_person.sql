-- Issue 33, item 2: a worker line per person. The room's worker role was one LOGIN role with one
-- password for the whole room, and any role may change its own settings and password
-- (ALTER ROLE CURRENT_USER SET default_transaction_read_only = on; … RESET ALL; … PASSWORD '…'):
-- one trainee changed it for everyone, and it survived restarts. Now the worker role is a group
-- (NOLOGIN, no password) that holds the worker's privileges, and each person who runs a worker from
-- their own machine gets a LOGIN role of their own, a member of it, with a small CONNECTION LIMIT
-- (fl_issue_worker_line, called when a lab page hands a person their line): what one role does to
-- itself reaches no one else. The local worker role (0041) stays a member, as the server's own.
CREATE TABLE worker_lines (
  role_name   text PRIMARY KEY,
  -- Who it was issued to (the hash of the browser's owner secret) and for which lab's page.
  holder      text NOT NULL,
  lab         text NOT NULL,
  issued_from inet,
  issued_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (holder, lab)
);
REVOKE ALL ON worker_lines FROM PUBLIC;

DO $$
BEGIN
  EXECUTE format('ALTER ROLE %I NOLOGIN PASSWORD NULL', fencing_lab_role('worker'));
END $$;

-- The room's shared password goes with the room's login (the local role's stays: db/roles.ts).
ALTER TABLE worker_credentials DROP COLUMN password;
