-- Least privilege, enforced by PostgreSQL (issue 11). Besides the owner (who runs the migrations and
-- owns every table and function), two roles per database. Roles are cluster-wide, so their names are
-- made from the database's name (db/roles.ts computes the same names):
--   * the WORKER role (LOGIN): owns nothing, has no privilege on any table or sequence, and may only
--     EXECUTE the worker's SECURITY DEFINER functions (0015). Every worker connects as it; its
--     password is set after the migrations by db/roles.ts ensureWorkerPassword.
--   * the APP role (NOLOGIN): what the app server's pools run as (`-c role=…` on the owner's URL),
--     with only what the server needs (0016). Granted to the owner, so that the owner may take it.
CREATE FUNCTION fencing_lab_role(purpose text) RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT 'fencing_' || purpose || '_'
         || left(regexp_replace(lower(current_database()), '[^a-z0-9_]', '_', 'g'), 32)
         || '_' || left(md5(current_database()), 8)
$$;

DO $$
DECLARE
  worker text := fencing_lab_role('worker');
  app text := fencing_lab_role('app');
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = worker) THEN
    -- No password yet: nobody can log in as it until ensureWorkerPassword sets one.
    EXECUTE format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS', worker);
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = app) THEN
    EXECUTE format('CREATE ROLE %I NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS', app);
  END IF;
  EXECUTE format('GRANT %I TO %I', app, current_user);
  -- PUBLIC may connect to and make temporary objects in a new database by default: only the
  -- worker role connects (the app role is taken by the owner's own sessions).
  EXECUTE format('REVOKE CONNECT, TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), worker);
  EXECUTE format('GRANT USAGE ON SCHEMA public TO %I, %I', worker, app);
END $$;

-- Before PostgreSQL 15 anyone may create in schema public; a worker must not (a function or an
-- operator of its own there could be picked up by name).
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
-- Functions are executable by PUBLIC by default: none of ours is, now or later. Each role is given
-- EXECUTE on exactly the functions it may call (0015, 0016).
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA public FROM PUBLIC;
ALTER DEFAULT PRIVILEGES REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;

-- The room's worker password when FENCING_LAB_WORKER_PASSWORD is not set: generated once, kept here
-- (the owner's alone), so every app server on this database hands out the same worker line.
CREATE TABLE worker_credentials (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  password  text NOT NULL CHECK (length(password) >= 16)
);

-- Every token granted from write_epoch, with the resource it was granted for, recorded in the
-- grant's own transaction (a fresh grant or a takeover). The guard accepts a write to a lab's row
-- only with a token granted for that lab's resource: a token of another lab's lease, however high,
-- is refused.
CREATE TABLE lease_grants (
  token      bigint PRIMARY KEY,
  resource   text NOT NULL,
  lab        text NOT NULL,
  holder     text NOT NULL,
  granted_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX lease_grants_lab ON lease_grants (lab);
-- The leases held now were granted before this record existed.
INSERT INTO lease_grants (token, resource, lab, holder, granted_at)
SELECT token, resource, lab, holder, acquired_at FROM leases ON CONFLICT DO NOTHING;

-- Every lease and event names its lab: the default lab 'main' named none.
ALTER TABLE events ALTER COLUMN lab DROP DEFAULT;
ALTER TABLE leases ALTER COLUMN lab DROP DEFAULT;
