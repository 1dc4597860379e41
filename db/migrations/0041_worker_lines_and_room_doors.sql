-- Issue 23, items 3, 5 and 8: the room cannot take the server's worker line, a shared lab takes
-- remote workers only while its trainer opens it to them, and a shared lab nobody watches stops.
--
-- The LOCAL worker role (LOGIN, INHERIT, a member of the worker role: exactly its privileges) is
-- what the workers an app server forks connect as. Its password is the owner's alone
-- (worker_credentials.local_password, set by db/roles.ts ensureLocalWorkerPassword) and the network
-- never admits it (lib/launcher/pg-access.ts): however many connections the room's worker line
-- holds, the trainer's and an owner's Start still connect. Each role has its own CONNECTION LIMIT,
-- and together they leave the app's pools a third of max_connections.
DO $$
DECLARE
  worker text := fencing_lab_role('worker');
  local_role text := fencing_lab_role('local');
  slots integer := current_setting('max_connections')::integer;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = local_role) THEN
    EXECUTE format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE INHERIT NOREPLICATION NOBYPASSRLS',
                   local_role);
  END IF;
  EXECUTE format('GRANT %I TO %I', worker, local_role);
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), local_role);
  EXECUTE format('ALTER ROLE %I CONNECTION LIMIT %s', worker, slots * 2 / 5);
  EXECUTE format('ALTER ROLE %I CONNECTION LIMIT %s', local_role, slots / 3);
  BEGIN
    -- The worker role's session defaults (0020, 0040) are its own: a member does not inherit them.
    EXECUTE format('ALTER ROLE %I SET statement_timeout = %L', local_role, '2s');
    EXECUTE format('ALTER ROLE %I SET lock_timeout = %L', local_role, '1s');
    EXECUTE format('ALTER ROLE %I SET idle_in_transaction_session_timeout = %L', local_role, '2s');
    EXECUTE format('ALTER ROLE %I SET work_mem = %L', local_role, '4MB');
    EXECUTE format('ALTER ROLE %I SET temp_file_limit = %L', local_role, '64MB');
  EXCEPTION WHEN insufficient_privilege THEN
    RAISE WARNING 'the owner may not set the local worker role''s session limits (%)', SQLERRM;
  END;
END $$;

ALTER TABLE worker_credentials ADD COLUMN local_password text CHECK (length(local_password) >= 16);

-- Whether the shared lab's trainer lets remote workers join it now: off until the trainer opens it.
ALTER TABLE labs ADD COLUMN remote_workers_open boolean NOT NULL DEFAULT false;
-- When the idle watch last stopped the shared lab's workers (nobody watched or drove it), and what it
-- stopped (name and settings each), for the page's one-click start again. Cleared by any start.
ALTER TABLE labs ADD COLUMN idle_stopped_at timestamptz;
ALTER TABLE labs ADD COLUMN idle_stopped_workers jsonb;

-- A worker that joined over the room's line (not the local role), and from where: remote joins are
-- counted per lab and per client address.
ALTER TABLE remote_workers ADD COLUMN remote boolean NOT NULL DEFAULT false;
ALTER TABLE remote_workers ADD COLUMN client_addr inet;

-- The app servers open and close a shared lab to remote workers, record a lab's attendance (a page
-- watching it, a trainer driving it: last_used_at, 0019, now for every lab) and its idle stops.
DO $$
BEGIN
  EXECUTE format('GRANT UPDATE (remote_workers_open, idle_stopped_at, idle_stopped_workers) ON labs TO %I',
                 fencing_lab_role('app'));
END $$;
