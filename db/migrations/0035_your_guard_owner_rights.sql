-- Your guard, corrected (after 0033):
--  * fl_install_guard: the owner takes the lab's role WITH INHERIT TRUE. An owner that is not a
--    superuser (CREATEROLE only) lost EXECUTE on the guard it handed over: its own grant passed to the
--    new owner with the function (measured: "permission denied for function guard_write"). Inheriting
--    the role's rights, it may call that role's function; it owns the table already.
--  * fl_your_guard_write: a statement that fails as it runs is a refused write with PostgreSQL's
--    reason in the event's detail (error), not an exception that stops the worker.

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
  -- call the function it hands over: an owner's own grant passes to the new owner with the function.
  EXECUTE format('GRANT %I TO %I WITH INHERIT TRUE, SET TRUE', r, current_user);
  IF NOT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = s) THEN
    EXECUTE format('CREATE SCHEMA %I', s);
    EXECUTE format('REVOKE ALL ON SCHEMA %I FROM PUBLIC', s);
    EXECUTE format('CREATE TABLE %I.guarded_row (id integer PRIMARY KEY, value text NOT NULL, last_token bigint NOT NULL DEFAULT 0)', s);
    EXECUTE format('INSERT INTO %I.guarded_row (id, value) VALUES ($1, $2)', s)
      USING b.row_id, coalesce((SELECT u.value FROM unguarded_rows u WHERE u.lab = p_lab), 'initial');
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', s, r);
    EXECUTE format('GRANT SELECT, UPDATE ON %I.guarded_row TO %I', s, r);
  END IF;
  EXECUTE format('DROP FUNCTION IF EXISTS %I.guard_write(text, bigint, integer)', s);
  -- The body: the statement as a literal (%L) inside a fixed PL/pgSQL block. $1 value, $2 token, $3 row id.
  EXECUTE format(
    'CREATE FUNCTION %I.guard_write(text, bigint, integer) RETURNS integer LANGUAGE plpgsql SECURITY DEFINER '
    'SET search_path = %I, pg_temp SET lock_timeout = %L AS %L',
    s, s, '2s',
    'DECLARE changed_rows integer; BEGIN ' || p_statement || '; GET DIAGNOSTICS changed_rows = ROW_COUNT; RETURN changed_rows; END');
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

CREATE OR REPLACE FUNCTION fl_your_guard_write(p_lab text, p_value text, p_token bigint, p_actor text, p_generation bigint)
RETURNS TABLE (outcome text, stored_token bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  b labs%ROWTYPE;
  s text;
  changed integer;
  row_value text;
  row_token bigint;
  failure text;
BEGIN
  IF p_generation IS NOT NULL THEN PERFORM lab_generation_current(p_lab, p_generation); END IF;
  b := fl_your_guard_lab(p_lab);
  s := fl_guard_schema(p_lab);
  IF to_regprocedure(format('%I.guard_write(text, bigint, integer)', s)) IS NULL THEN
    RAISE EXCEPTION 'the lab % has no guard yet: submit one first', p_lab USING ERRCODE = 'FL011';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM events e
                  WHERE e.lab = p_lab AND e.kind = 'lease_acquired' AND e.token = p_token AND e.actor = p_actor
                    AND (p_generation IS NULL OR e.generation = p_generation)) THEN
    RAISE EXCEPTION 'token % was not granted to % in the lab %', p_token, p_actor, p_lab USING ERRCODE = 'FL009';
  END IF;
  -- A statement that fails as it runs (a division by zero, a lock wait past its timeout) wrote nothing:
  -- recorded as a refused write with PostgreSQL's reason. A statement timeout is not caught (query_canceled).
  BEGIN
    EXECUTE format('SELECT %I.guard_write($1, $2, $3)', s) INTO changed USING p_value, p_token, b.row_id;
  EXCEPTION WHEN OTHERS THEN
    changed := 0;
    failure := SQLERRM;
  END;
  EXECUTE format('SELECT g.value, g.last_token FROM %I.guarded_row g WHERE g.id = $1', s)
     INTO row_value, row_token USING b.row_id;
  -- The lab's row as the pages show it: what guarded_row holds now.
  UPDATE unguarded_rows u SET value = row_value, last_token = row_token, last_token_text = row_token::text,
                              updated_at = clock_timestamp()
   WHERE u.id = b.row_id AND u.lab = p_lab;
  INSERT INTO events (lab, actor, kind, row_id, token, stored_token, outcome, detail, generation)
  VALUES (p_lab, p_actor, CASE WHEN changed > 0 THEN 'write_accepted' ELSE 'write_rejected' END, b.row_id, p_token,
          CASE WHEN changed > 0 THEN NULL ELSE row_token END, CASE WHEN changed > 0 THEN 'accepted' ELSE 'stale' END,
          jsonb_build_object('value', p_value, 'table', 'guarded_row', 'path', 'your guard', 'changedRows', changed)
            || CASE WHEN failure IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('error', left(failure, 500)) END,
          p_generation);
  RETURN QUERY SELECT CASE WHEN changed > 0 THEN 'accepted' ELSE 'stale' END,
                      CASE WHEN changed > 0 THEN NULL ELSE row_token END;
END $$;

