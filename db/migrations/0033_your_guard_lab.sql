-- Bring your own guard (issue 15 part 1): a private-only lab kind whose write is a statement the
-- trainee wrote. The app checks it with PostgreSQL's parser (lib/model/guard-statement.ts) and hands
-- only its canonical (deparsed) text here; PostgreSQL itself then keeps it inside its lab:
--  * per lab, a schema of its own (guard_<lab>) holding one table, guarded_row (id, value, last_token);
--  * per lab, a NOLOGIN role (fencing_guard_<lab>_<database digest>; roles are cluster-wide) whose only
--    privileges are USAGE on that schema and SELECT, UPDATE on that table;
--  * per lab, <schema>.guard_statement, one row: the trainee's statement, readable by that role only;
--  * per lab, <schema>.guard_write(value text, token bigint, row_id integer) RETURNS integer, a
--    SECURITY DEFINER function OWNED BY THAT ROLE whose fixed body (fl_guard_body) EXECUTEs that
--    statement, with search_path pinned to the lab's schema and a lock timeout; EXECUTE revoked from
--    PUBLIC. It returns how many rows the statement changed. Checked before and after every run
--    (fl_guard_intact): its owner could ALTER it.
-- The owner's functions below are the only doors: fl_install_guard and fl_drop_guard (app role),
-- fl_your_guard_write (app role) and worker_your_guard_write (worker role, its own lab and run, a
-- token granted to it there). The write's outcome is recorded as the lab's event in the write's own
-- transaction, and the lab's row in unguarded_rows mirrors guarded_row, so the timeline, replay,
-- export and checker read this lab as any other.
-- Tokens: from the lab's own counter (labs.text_epoch, bumped in the grant's transaction, staged at 8
-- as the token-as-text lab's), so the pause story's second grant crosses a digit (9 -> 10).

DO $$
DECLARE
  def text;
BEGIN
  SELECT pg_get_constraintdef(c.oid) INTO def FROM pg_constraint c
   WHERE c.conname = 'labs_kind_check' AND c.conrelid = 'labs'::regclass;
  ALTER TABLE labs DROP CONSTRAINT labs_kind_check;
  EXECUTE format('ALTER TABLE labs ADD CONSTRAINT labs_kind_check CHECK (%s OR kind IN (%L))',
                 regexp_replace(def, '^CHECK ', ''), 'your-guard');
END $$;
-- Private only: no shared lab of this kind.
ALTER TABLE labs ADD CONSTRAINT labs_your_guard_private CHECK (kind <> 'your-guard' OR visibility = 'private');

-- The names, made here only (the app never passes one in).
CREATE FUNCTION fl_guard_schema(p_lab text) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT 'guard_' || replace(p_lab, '-', '_')
$$;

CREATE FUNCTION fl_guard_role(p_lab text) RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT 'fencing_guard_' || replace(p_lab, '-', '_') || '_' || left(md5(current_database()), 8)
$$;

-- The open your-guard lab p_lab, or FL011.
CREATE FUNCTION fl_your_guard_lab(p_lab text) RETURNS labs
LANGUAGE plpgsql STABLE SET search_path = public, pg_temp AS $$
DECLARE
  b labs%ROWTYPE;
BEGIN
  SELECT * INTO b FROM labs l WHERE l.id = p_lab;
  IF NOT FOUND OR b.kind <> 'your-guard' OR b.visibility <> 'private' OR p_lab !~ '^p-[a-z0-9]{10}$' THEN
    RAISE EXCEPTION 'the lab % is not a your-guard lab', p_lab USING ERRCODE = 'FL011';
  END IF;
  RETURN b;
END $$;

-- guard_write's body, the same for every lab: the statement is not in it (pg_proc.prosrc is readable by
-- every role, the worker role's room included) but in the lab's one-row guard_statement, which only the
-- lab's role may read. $1 value, $2 token, $3 row id; it returns the rows the statement changed.
CREATE FUNCTION fl_guard_body() RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT 'DECLARE changed_rows integer; BEGIN '
         'EXECUTE (SELECT g.statement FROM guard_statement g) USING $1, $2, $3; '
         'GET DIAGNOSTICS changed_rows = ROW_COUNT; RETURN changed_rows; END'
$$;

-- Is the lab's guard_write still as fl_install_guard left it? Its role owns it (a SECURITY DEFINER function
-- runs with its owner's privileges, and only the owner, or a superuser, may ALTER a function: so the role
-- whose privileges the statement runs with is the one that could change it, and no other split is
-- possible), so anything that ran as that role could have made it SECURITY INVOKER (the next call would
-- run as the caller: the owner), reset its search_path or timeout, granted it to PUBLIC, or set the
-- role's own defaults. Checked before every run of the guard and after it.
CREATE FUNCTION fl_guard_intact(p_lab text) RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT coalesce((
    SELECT p.prosecdef AND NOT p.proisstrict AND p.provolatile = 'v' AND p.prokind = 'f'
           AND p.proowner = (SELECT oid FROM pg_roles WHERE rolname = public.fl_guard_role(p_lab))
           AND p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'plpgsql')
           AND p.prosrc = public.fl_guard_body()
           AND p.proconfig IS NOT DISTINCT FROM
               ARRAY[format('search_path=%I, pg_temp', public.fl_guard_schema(p_lab)), 'lock_timeout=2s']
           AND p.proacl::text[] IS NOT DISTINCT FROM
               ARRAY[format('%s=X/%s', public.fl_guard_role(p_lab), public.fl_guard_role(p_lab))]
           AND NOT EXISTS (SELECT 1 FROM pg_db_role_setting d WHERE d.setrole = p.proowner)
      FROM pg_proc p
     WHERE p.oid = to_regprocedure(format('%I.guard_write(text, bigint, integer)', public.fl_guard_schema(p_lab)))
  ), false)
$$;

-- Installs (or replaces) the lab's guard: p_statement is the canonical text of one UPDATE that the
-- app's parser check accepted. Whatever it says, it runs as the lab's role, which can reach nothing
-- but guarded_row. Tried once on the lab's row and undone: a statement PostgreSQL refuses (no such
-- column, a type mismatch) is refused here, with PostgreSQL's reason (FLG01).
CREATE FUNCTION fl_install_guard(p_lab text, p_statement text) RETURNS void
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

-- Drops the lab's guard, its schema and its role (a closed lab keeps its history, not its guard).
CREATE FUNCTION fl_drop_guard(p_lab text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  b labs%ROWTYPE := fl_your_guard_lab(p_lab);
  s text := fl_guard_schema(b.id);
  r text := fl_guard_role(b.id);
BEGIN
  EXECUTE format('DROP SCHEMA IF EXISTS %I CASCADE', s);
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
    EXECUTE format('DROP ROLE %I', r);
  END IF;
END $$;

-- The lab's write: the trainee's statement, run as the lab's role, and its outcome as the lab's event,
-- in one transaction. Only a token granted to this writer in this lab (and run, for a worker).
CREATE FUNCTION fl_your_guard_write(p_lab text, p_value text, p_token bigint, p_actor text, p_generation bigint)
RETURNS TABLE (outcome text, stored_token bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  b labs%ROWTYPE;
  s text;
  changed integer;
  row_value text;
  row_token bigint;
  guard_error text;
BEGIN
  IF p_generation IS NOT NULL THEN PERFORM lab_generation_current(p_lab, p_generation); END IF;
  b := fl_your_guard_lab(p_lab);
  s := fl_guard_schema(p_lab);
  IF to_regprocedure(format('%I.guard_write(text, bigint, integer)', s)) IS NULL THEN
    RAISE EXCEPTION 'the lab % has no guard yet: submit one first', p_lab USING ERRCODE = 'FL011';
  END IF;
  IF NOT fl_guard_intact(p_lab) THEN
    RAISE EXCEPTION 'the guard of the lab % is not as it was installed: submit it again', p_lab USING ERRCODE = 'FL011';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM events e
                  WHERE e.lab = p_lab AND e.kind = 'lease_acquired' AND e.token = p_token AND e.actor = p_actor
                    AND (p_generation IS NULL OR e.generation = p_generation)) THEN
    RAISE EXCEPTION 'token % was not granted to % in the lab %', p_token, p_actor, p_lab USING ERRCODE = 'FL009';
  END IF;
  -- An error the trainee's statement raises (division by zero, a timeout) is the guard's failure, not
  -- the write's: its effects are undone, and it is recorded as a write refused with PostgreSQL's words.
  BEGIN
    EXECUTE format('SELECT %I.guard_write($1, $2, $3)', s) INTO changed USING p_value, p_token, b.row_id;
    IF NOT fl_guard_intact(p_lab) THEN
      RAISE EXCEPTION 'the guard changed its own function (undone)' USING ERRCODE = 'FL011';
    END IF;
  EXCEPTION WHEN OTHERS OR query_canceled THEN
    guard_error := SQLERRM;
  END;
  EXECUTE format('SELECT g.value, g.last_token FROM %I.guarded_row g WHERE g.id = $1', s)
     INTO row_value, row_token USING b.row_id;
  IF guard_error IS NOT NULL THEN
    INSERT INTO events (lab, actor, kind, row_id, token, outcome, detail, generation)
    VALUES (p_lab, p_actor, 'write_rejected', b.row_id, p_token, 'error',
            jsonb_build_object('value', p_value, 'table', 'guarded_row', 'path', 'your guard',
                               'error', left(guard_error, 500)),
            p_generation);
    RETURN QUERY SELECT 'refused'::text, row_token;
    RETURN;
  END IF;
  -- The lab's row as the pages show it: what guarded_row holds now, copied only by a write that changed it
  -- (and so holds its lock until commit). A refused write may have read guarded_row before a concurrent
  -- accepted write committed: copying that older value after it would put the row back (seen under chaos).
  IF changed > 0 THEN
    UPDATE unguarded_rows u SET value = row_value, last_token = row_token, last_token_text = row_token::text,
                                updated_at = clock_timestamp()
     WHERE u.id = b.row_id AND u.lab = p_lab;
  END IF;
  INSERT INTO events (lab, actor, kind, row_id, token, stored_token, outcome, detail, generation)
  VALUES (p_lab, p_actor, CASE WHEN changed > 0 THEN 'write_accepted' ELSE 'write_rejected' END, b.row_id, p_token,
          CASE WHEN changed > 0 THEN NULL ELSE row_token END, CASE WHEN changed > 0 THEN 'accepted' ELSE 'stale' END,
          jsonb_build_object('value', p_value, 'table', 'guarded_row', 'path', 'your guard', 'changedRows', changed),
          p_generation);
  RETURN QUERY SELECT CASE WHEN changed > 0 THEN 'accepted' ELSE 'stale' END,
                      CASE WHEN changed > 0 THEN NULL ELSE row_token END;
END $$;

-- The worker's door: its own lab and run, as worker_broken_write.
CREATE FUNCTION worker_your_guard_write(p_lab text, p_name text, p_instance text, p_value text, p_token bigint)
RETURNS TABLE (outcome text, row_id integer, stored_token bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  joined bigint;
  b labs%ROWTYPE;
BEGIN
  IF length(p_value) > 10000 THEN RAISE EXCEPTION 'value must be at most 10000 characters' USING ERRCODE = '22023'; END IF;
  joined := worker_generation(p_lab, p_name, p_instance);
  b := fl_your_guard_lab(p_lab);
  RETURN QUERY SELECT w.outcome, b.row_id, w.stored_token
                 FROM fl_your_guard_write(p_lab, p_value, p_token, p_name, joined) w;
END $$;

-- A grant in this lab mints from the lab's own staged counter, as the token-as-text lab's does.
CREATE OR REPLACE FUNCTION worker_acquire_lease(p_lab text, p_name text, p_instance text, p_ttl_ms double precision)
RETURNS TABLE (outcome text, lease_resource text, lease_holder text, lease_token bigint,
               lease_acquired_at timestamptz, lease_expires_at timestamptz, prev_holder text, prev_token bigint,
               prev_acquired_at timestamptz, prev_expires_at timestamptz)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  joined bigint;
  b labs%ROWTYPE;
BEGIN
  PERFORM worker_check_ttl(p_ttl_ms);
  joined := worker_generation(p_lab, p_name, p_instance);
  SELECT * INTO b FROM labs l WHERE l.id = p_lab;
  RETURN QUERY SELECT * FROM fl_acquire_lease(b.resource, p_name, p_ttl_ms, p_lab, joined,
                                              b.kind IN ('token-as-text', 'your-guard'));
END $$;

-- A reset puts the lab's row back (guarded_row too) and restages its counter; the guard stays.
CREATE OR REPLACE FUNCTION fl_reset_unguarded_row(p_lab text, p_value text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  b labs%ROWTYPE;
BEGIN
  SELECT * INTO b FROM labs l WHERE l.id = p_lab;
  IF NOT FOUND OR b.kind = 'fenced' THEN
    RAISE EXCEPTION '% is not a broken lab', p_lab USING ERRCODE = 'FL011';
  END IF;
  INSERT INTO unguarded_rows AS u (id, lab, value) VALUES (b.row_id, b.id, p_value)
  ON CONFLICT (id) DO UPDATE SET value = EXCLUDED.value, last_token = 0, last_token_text = '0',
                                 updated_at = clock_timestamp();
  IF b.kind IN ('token-as-text', 'your-guard') THEN UPDATE labs SET text_epoch = 8 WHERE id = p_lab; END IF;
  IF b.kind = 'your-guard' AND to_regclass(format('%I.guarded_row', fl_guard_schema(p_lab))) IS NOT NULL THEN
    EXECUTE format('UPDATE %I.guarded_row SET value = $1, last_token = 0 WHERE id = $2', fl_guard_schema(p_lab))
      USING p_value, b.row_id;
  END IF;
END $$;

REVOKE ALL ON FUNCTION fl_guard_intact(text) FROM PUBLIC;

DO $$
DECLARE
  app text := fencing_lab_role('app');
  worker text := fencing_lab_role('worker');
BEGIN
  EXECUTE format('GRANT EXECUTE ON FUNCTION worker_your_guard_write(text, text, text, text, bigint) TO %I', worker);
  EXECUTE format('GRANT EXECUTE ON FUNCTION fl_install_guard(text, text), fl_drop_guard(text), '
                 'fl_your_guard_write(text, text, bigint, text, bigint) TO %I', app);
END $$;
