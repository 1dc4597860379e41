-- execute: app
-- Installs (or replaces) the lab's guard: p_statement is the canonical text of one UPDATE that the
-- app's parser check accepted. Whatever it says, it runs as the lab's role, which can reach nothing
-- but guarded_row. Tried once on the lab's row and undone: a statement PostgreSQL refuses (no such
-- column, a type mismatch) is refused here, with PostgreSQL's reason (FLG01).
CREATE OR REPLACE FUNCTION fl_install_guard(p_lab text, p_statement text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  b labs%ROWTYPE := fl_your_guard_lab(p_lab);
  s text := fl_guard_schema(p_lab);
  r text := fl_guard_role(p_lab);
BEGIN
  IF b.closed_at IS NOT NULL THEN
    RAISE EXCEPTION 'the lab % is closed', p_lab USING ERRCODE = 'FL011';
  END IF;
  IF p_statement IS NULL OR length(p_statement) > 2000 THEN
    RAISE EXCEPTION 'a guard is at most 2000 characters' USING ERRCODE = '22023';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
    EXECUTE format('CREATE ROLE %I NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS', r);
  END IF;
  -- The owner must be able to take the role to hand it the function (a superuser need not; an owner
  -- with CREATEROLE is the role's admin and may grant it to itself), and must inherit its rights to
  -- call the function it hands over: an owner's own grant passes to the new owner with the function
  -- (measured with a CREATEROLE owner: "permission denied for function guard_write" otherwise).
  IF current_setting('server_version_num')::int >= 160000 THEN
    EXECUTE format('GRANT %I TO %I WITH INHERIT TRUE, SET TRUE', r, current_user);
  ELSE
    -- PostgreSQL 15 has no options on a membership: a member may take the role, and inherits its rights
    -- as its own INHERIT attribute says (the default).
    EXECUTE format('GRANT %I TO %I', r, current_user);
  END IF;
  -- Defaults the role may have set itself (ALTER ROLE ... SET) go: fl_guard_intact refuses a role with any.
  EXECUTE format('ALTER ROLE %I RESET ALL', r);
  IF NOT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = s) THEN
    EXECUTE format('CREATE SCHEMA %I', s);
    EXECUTE format('REVOKE ALL ON SCHEMA %I FROM PUBLIC', s);
    EXECUTE format('CREATE TABLE %I.guarded_row (id integer PRIMARY KEY, value text NOT NULL, last_token bigint NOT NULL DEFAULT 0)', s);
    EXECUTE format('INSERT INTO %I.guarded_row (id, value) VALUES ($1, $2)', s)
      USING b.row_id, coalesce((SELECT u.value FROM unguarded_rows u WHERE u.lab = p_lab), 'initial');
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', s, r);
    EXECUTE format('GRANT SELECT, UPDATE ON %I.guarded_row TO %I', s, r);
  END IF;
  -- The statement, where only the lab's role (and the owner) can read it: one row.
  EXECUTE format('CREATE TABLE IF NOT EXISTS %I.guard_statement '
                 '(one boolean PRIMARY KEY DEFAULT true CHECK (one), statement text NOT NULL)', s);
  EXECUTE format('GRANT SELECT ON %I.guard_statement TO %I', s, r);
  EXECUTE format('INSERT INTO %I.guard_statement (statement) VALUES ($1) '
                 'ON CONFLICT (one) DO UPDATE SET statement = EXCLUDED.statement', s) USING p_statement;
  EXECUTE format('DROP FUNCTION IF EXISTS %I.guard_write(text, bigint, integer)', s);
  -- The body is fixed (fl_guard_body): it runs the statement kept in guard_statement.
  EXECUTE format(
    'CREATE FUNCTION %I.guard_write(text, bigint, integer) RETURNS integer LANGUAGE plpgsql SECURITY DEFINER '
    'SET search_path = %I, pg_temp SET lock_timeout = %L AS %L',
    s, s, '2s', fl_guard_body());
  EXECUTE format('REVOKE ALL ON FUNCTION %I.guard_write(text, bigint, integer) FROM PUBLIC', s);
  -- ALTER ... OWNER needs the new owner to have CREATE on the schema: given for this statement only.
  EXECUTE format('GRANT CREATE ON SCHEMA %I TO %I', s, r);
  EXECUTE format('ALTER FUNCTION %I.guard_write(text, bigint, integer) OWNER TO %I', s, r);
  EXECUTE format('REVOKE CREATE ON SCHEMA %I FROM %I', s, r);
  BEGIN
    EXECUTE format('SELECT %I.guard_write($1, $2, $3)', s) USING 'trial', 0::bigint, b.row_id;
    RAISE EXCEPTION 'undo the trial' USING ERRCODE = 'FLG00';
  EXCEPTION
    WHEN SQLSTATE 'FLG00' THEN NULL;
    WHEN OTHERS THEN
      RAISE EXCEPTION 'PostgreSQL refused the guard: %', SQLERRM USING ERRCODE = 'FLG01';
  END;
END $$;
