-- execute: owner
-- Least privilege, enforced by PostgreSQL (issue 11). Besides the owner (who runs the migrations and
-- owns every table and function), two roles per database. Roles are cluster-wide, so their names are
-- made from the database's name (db/roles.ts computes the same names):
--   * the WORKER role (LOGIN): owns nothing, has no privilege on any table or sequence, and may only
--     EXECUTE the worker's SECURITY DEFINER functions (0015). Every worker connects as it; its
--     password is set after the migrations by db/roles.ts ensureWorkerPassword.
--   * the APP role (NOLOGIN): what the app server's pools run as (`-c role=…` on the owner's URL),
--     with only what the server needs (0016). Granted to the owner, so that the owner may take it.
CREATE OR REPLACE FUNCTION fencing_lab_role(purpose text) RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT 'fencing_' || purpose || '_'
         || left(regexp_replace(lower(current_database()), '[^a-z0-9_]', '_', 'g'), 32)
         || '_' || left(md5(current_database()), 8)
$$;
