-- execute: app
-- A person's own worker line (0046): a LOGIN role, a member of the worker group (so exactly the
-- worker's privileges), with its own password (p_password, made by the app server), at most
-- p_connections connections, and the issued session defaults (fl_worker_line_settings). One per
-- browser (p_holder, the hash of its owner secret) and lab page: asked again, the same role is given
-- a new password and its settings are put back (what its person changed reaches only them). At most
-- p_per_address lines issued to one client address (past it, the address's own idle line is taken
-- back, by the rule that follows), and at most as many as fit in two fifths of
-- max_connections (the room's worker line had that many): past it, the oldest line issued 10 minutes
-- ago or more that runs no worker (none it joined has beaten for 2 minutes) is taken back, its
-- sessions ended, one with no session first; else refused (FL030, in words). Returns the role's name.
--
-- Needs an owner that may CREATE ROLE (a superuser, as the embedded cluster's, or CREATEROLE).
CREATE OR REPLACE FUNCTION fl_issue_worker_line(p_holder text, p_lab text, p_address inet, p_password text,
                                                p_connections integer, p_per_address integer)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  line text;
  budget integer := current_setting('max_connections')::integer * 2 / 5;
  victim text;
  group_role text := fencing_lab_role('worker');
BEGIN
  IF p_holder IS NULL OR length(p_holder) <> 64 OR p_password IS NULL OR length(p_password) < 16
     OR p_connections NOT BETWEEN 2 AND 16 OR p_per_address < 1 THEN
    RAISE EXCEPTION 'a worker line is issued to a browser, with a password of at least 16 characters'
      USING ERRCODE = '22023';
  END IF;
  IF NOT EXISTS (SELECT FROM labs l WHERE l.id = p_lab AND l.closed_at IS NULL AND l.history_deleted_at IS NULL) THEN
    RAISE EXCEPTION 'no open lab %', p_lab USING ERRCODE = '22023';
  END IF;
  -- One issuer at a time: the counts below hold until this transaction ends.
  PERFORM pg_advisory_xact_lock(hashtext('fencing_lab.worker_lines'));
  -- Lines whose lab closed are taken back first (one PostgreSQL will not drop is left for later).
  FOR victim IN SELECT w.role_name FROM worker_lines w LEFT JOIN labs l ON l.id = w.lab
                 WHERE l.id IS NULL OR l.closed_at IS NOT NULL OR l.history_deleted_at IS NOT NULL LOOP
    PERFORM fl_drop_worker_line(victim);
  END LOOP;
  SELECT w.role_name INTO line FROM worker_lines w WHERE w.holder = p_holder AND w.lab = p_lab;
  -- An address's share counts the lines it would hold, a line asked for again from elsewhere too.
  -- Full, the address's own oldest line that runs no worker, issued 10 minutes ago or more, is taken
  -- back (fl_idle_worker_line, the room's rule below too): a trainee who joins a ninth shared lab in a morning is not
  -- refused for good (a lab's lines are taken back only when it closes), and a script at one address
  -- makes at most p_per_address lines in 10 minutes.
  IF (SELECT count(*) FROM worker_lines w
       WHERE w.issued_from IS NOT DISTINCT FROM p_address AND w.role_name IS DISTINCT FROM line) >= p_per_address THEN
    victim := fl_idle_worker_line(p_address, false, line, p_holder);
    IF victim IS NULL OR NOT fl_drop_worker_line(victim) THEN
      RAISE EXCEPTION 'this address already holds % worker lines, each running a worker or issued in the last 10 minutes: ask again in a few minutes, or ask your trainer',
        p_per_address USING ERRCODE = 'FL030';
    END IF;
  END IF;
  IF line IS NULL THEN
    IF ((SELECT count(*) FROM worker_lines) + 1) * p_connections > budget THEN
      -- A line runs a worker while one it joined beats; a session alone keeps no line from the room.
      victim := fl_idle_worker_line(NULL, true, NULL, p_holder);
      IF victim IS NULL OR NOT fl_drop_worker_line(victim) THEN
        RAISE EXCEPTION 'the room''s worker lines are all in use (% of them): ask your trainer',
          (SELECT count(*) FROM worker_lines) USING ERRCODE = 'FL030';
      END IF;
    END IF;
    line := 'fencing_line_' || left(md5(current_database()), 8) || '_'
            || left(md5(random()::text || clock_timestamp()::text || p_holder), 12);
    EXECUTE format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE INHERIT NOREPLICATION NOBYPASSRLS '
                   'CONNECTION LIMIT %s PASSWORD %L', line, p_connections, p_password);
    -- Its privileges are the group's; it may not SET ROLE to it (PostgreSQL 16 and later say so).
    IF current_setting('server_version_num')::integer >= 160000 THEN
      EXECUTE format('GRANT %I TO %I WITH INHERIT TRUE, SET FALSE', group_role, line);
    ELSE
      EXECUTE format('GRANT %I TO %I', group_role, line);
    END IF;
    -- An owner that is no superuser sees a session's state, ends it and drops what it owns only as
    -- a member of its role (the watchdogs, fl_drop_worker_line).
    IF NOT (SELECT r.rolsuper FROM pg_roles r WHERE r.rolname = current_user) THEN
      IF current_setting('server_version_num')::integer >= 160000 THEN
        EXECUTE format('GRANT %I TO %I WITH INHERIT TRUE, SET FALSE', line, current_user);
      ELSE
        EXECUTE format('GRANT %I TO %I', line, current_user);
      END IF;
    END IF;
    INSERT INTO worker_lines (role_name, holder, lab, issued_from) VALUES (line, p_holder, p_lab, p_address);
  ELSE
    EXECUTE format('ALTER ROLE %I PASSWORD %L', line, p_password);
    UPDATE worker_lines SET issued_at = clock_timestamp(), issued_from = p_address WHERE role_name = line;
  END IF;
  PERFORM fl_restore_worker_line(line);
  RETURN line;
END $$;
