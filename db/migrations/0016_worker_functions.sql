-- The worker's door: the only functions the worker role may execute. A worker presents (lab, name,
-- instance) to every call: the instance is the per-run secret it got when it joined. Another worker's
-- name or instance, a lab it did not join, and a lab reset (or closed) since it joined are refused.
-- Everything else it might want (the lab's resource and row, its generation, the token source) is
-- read here, never taken from the worker. Lease TTLs and values keep the bounds of lib/model/inputs.ts.

-- The run of the lab the worker joined, if (lab, name, instance) is a worker of the lab's current
-- run; otherwise FL008 (not joined, or another run took the name over) or FL007 (reset since). Takes
-- the lab's generation lock in shared mode first, as every worker statement does (0008).
CREATE FUNCTION worker_generation(p_lab text, p_name text, p_instance text) RETURNS bigint
LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
DECLARE
  joined bigint;
BEGIN
  SELECT r.generation INTO joined FROM remote_workers r
   WHERE r.lab = p_lab AND r.name = p_name AND r.instance = p_instance AND r.stopped_at IS NULL;
  IF joined IS NULL THEN
    RAISE EXCEPTION 'no running worker % with this instance in the lab % (join the lab first)', p_name, p_lab
      USING ERRCODE = 'FL008';
  END IF;
  PERFORM lab_generation_current(p_lab, joined);
  RETURN joined;
END $$;

CREATE FUNCTION worker_check_ttl(p_ttl_ms double precision) RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF p_ttl_ms IS NULL OR p_ttl_ms <> trunc(p_ttl_ms) OR p_ttl_ms < 100 OR p_ttl_ms > 600000 THEN
    RAISE EXCEPTION 'lease TTL must be a whole number of milliseconds from 100 to 600000' USING ERRCODE = '22023';
  END IF;
END $$;

-- A worker (started by hand or by a server) says lab, name and a fresh instance, and joins the lab's current run. Refused
-- (refusal set) when there is no such lab, it is closed, or the name is live in it. A stopped or
-- silent run of the name, or one from before the lab's last reset, is taken over, and the commands
-- it left untaken are dropped. Returns what the worker needs of the lab.
CREATE FUNCTION worker_join(p_lab text, p_name text, p_instance text, p_settings jsonb)
RETURNS TABLE (refusal text, generation bigint, kind text, row_id integer, resource text, visibility text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  b labs%ROWTYPE;
  last_local text;
  joined bigint;
BEGIN
  IF p_instance IS NULL OR length(p_instance) < 16 OR length(p_instance) > 64 THEN
    RAISE EXCEPTION 'an instance is 16 to 64 characters' USING ERRCODE = '22023';
  END IF;
  SELECT * INTO b FROM labs l WHERE l.id = p_lab AND l.history_deleted_at IS NULL;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'no_lab', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  IF b.closed_at IS NOT NULL THEN
    RETURN QUERY SELECT 'closed', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  -- Names are told apart without case, as the supervisor does: "far" would hide "Far".
  IF EXISTS (SELECT 1 FROM remote_workers r WHERE r.lab = p_lab AND lower(r.name) = lower(p_name)
                AND r.name <> p_name AND r.stopped_at IS NULL
                AND r.heartbeat_at > clock_timestamp() - interval '5 seconds'
                AND r.generation = b.generation) THEN
    RETURN QUERY SELECT 'name_taken', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  -- Nor the name of a worker the server runs in the lab: the last word on that name in the lab's
  -- history says whether it still runs.
  SELECT e.kind INTO last_local FROM events e
   WHERE e.lab = p_lab AND lower(e.actor) = lower(p_name) AND NOT (e.detail ? 'remote')
     AND e.kind IN ('worker_started', 'worker_restarted', 'worker_stopped', 'worker_crashed')
   ORDER BY e.id DESC LIMIT 1;
  IF last_local IN ('worker_started', 'worker_restarted') THEN
    RETURN QUERY SELECT 'name_taken', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  INSERT INTO remote_workers AS r (lab, name, instance, settings, phase, generation)
  VALUES (p_lab, p_name, p_instance, p_settings, 'starting', b.generation)
  ON CONFLICT (lab, name) DO UPDATE
     SET instance = EXCLUDED.instance, settings = EXCLUDED.settings, phase = 'starting', token = NULL,
         generation = EXCLUDED.generation, believed_until = NULL, armed = false,
         started_at = clock_timestamp(), heartbeat_at = clock_timestamp(), stopped_at = NULL
   WHERE r.stopped_at IS NOT NULL
      OR r.heartbeat_at <= clock_timestamp() - interval '5 seconds'
      OR r.generation <> (SELECT l.generation FROM labs l WHERE l.id = r.lab)
  RETURNING r.generation INTO joined;
  IF joined IS NULL THEN
    RETURN QUERY SELECT 'name_taken', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  UPDATE worker_commands c SET taken_at = clock_timestamp()
   WHERE c.lab = p_lab AND c.worker = p_name AND c.taken_at IS NULL;
  RETURN QUERY SELECT NULL::text, joined, b.kind, b.row_id, b.resource, b.visibility;
END $$;

-- The heartbeat with the worker's state. Returns why it must stop, if it must.
CREATE FUNCTION worker_beat(p_lab text, p_name text, p_instance text, p_phase text, p_token bigint,
                            p_believed_until timestamptz, p_armed boolean) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  closed boolean;
BEGIN
  IF length(p_phase) > 20 THEN RAISE EXCEPTION 'unknown phase' USING ERRCODE = '22023'; END IF;
  UPDATE remote_workers r
     SET heartbeat_at = clock_timestamp(), phase = p_phase, token = p_token, believed_until = p_believed_until,
         armed = coalesce(p_armed, false)
    FROM labs l
   WHERE r.lab = p_lab AND r.name = p_name AND l.id = r.lab AND r.instance = p_instance AND r.stopped_at IS NULL
     AND r.generation = l.generation
  RETURNING l.closed_at IS NOT NULL INTO closed;
  IF closed IS NULL THEN
    IF EXISTS (SELECT 1 FROM remote_workers r JOIN labs l ON l.id = r.lab
                WHERE r.lab = p_lab AND r.name = p_name AND r.instance = p_instance
                  AND r.generation <> l.generation) THEN
      RETURN 'reset';
    END IF;
    RETURN 'taken_over';
  END IF;
  IF closed THEN RETURN 'closed'; END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION worker_mark_stopped(p_lab text, p_name text, p_instance text) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  UPDATE remote_workers SET stopped_at = clock_timestamp(), phase = 'stopped'
   WHERE lab = p_lab AND name = p_name AND instance = p_instance AND stopped_at IS NULL
$$;

-- Takes the worker's waiting commands, oldest first; each is taken once, even by racing takers.
-- Only the run that holds the name takes them (a stop after a reset included).
CREATE FUNCTION worker_take_commands(p_lab text, p_name text, p_instance text)
RETURNS TABLE (id bigint, command text, seconds double precision)
LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  UPDATE worker_commands c SET taken_at = clock_timestamp()
   WHERE c.id IN (SELECT w.id FROM worker_commands w
                   WHERE w.lab = p_lab AND w.worker = p_name AND w.taken_at IS NULL
                     AND EXISTS (SELECT 1 FROM remote_workers r
                                  WHERE r.lab = p_lab AND r.name = p_name AND r.instance = p_instance
                                    AND r.stopped_at IS NULL)
                   ORDER BY w.id FOR UPDATE SKIP LOCKED)
  RETURNING c.id, c.command, c.seconds
$$;

CREATE FUNCTION worker_acquire_lease(p_lab text, p_name text, p_instance text, p_ttl_ms double precision)
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
  RETURN QUERY SELECT * FROM fl_acquire_lease(b.resource, p_name, p_ttl_ms, p_lab, joined, b.kind = 'token-as-text');
END $$;

CREATE FUNCTION worker_renew_lease(p_lab text, p_name text, p_instance text, p_token bigint,
                                   p_ttl_ms double precision)
RETURNS TABLE (outcome text, lease_resource text, lease_holder text, lease_token bigint,
               lease_acquired_at timestamptz, lease_expires_at timestamptz)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  joined bigint;
  b labs%ROWTYPE;
BEGIN
  PERFORM worker_check_ttl(p_ttl_ms);
  joined := worker_generation(p_lab, p_name, p_instance);
  SELECT * INTO b FROM labs l WHERE l.id = p_lab;
  RETURN QUERY SELECT * FROM fl_renew_lease(b.resource, p_name, p_token, p_ttl_ms, p_lab, joined);
END $$;

CREATE FUNCTION worker_release_lease(p_lab text, p_name text, p_instance text, p_token bigint)
RETURNS TABLE (outcome text, lease_resource text, lease_holder text, lease_token bigint,
               lease_acquired_at timestamptz, lease_expires_at timestamptz)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  joined bigint;
  b labs%ROWTYPE;
BEGIN
  joined := worker_generation(p_lab, p_name, p_instance);
  SELECT * INTO b FROM labs l WHERE l.id = p_lab;
  RETURN QUERY SELECT * FROM fl_release_lease(b.resource, p_name, p_token, p_lab, joined);
END $$;

-- The fenced write of a fenced lab's worker, on its lab's row, through the guard.
CREATE FUNCTION worker_fenced_write(p_lab text, p_name text, p_instance text, p_value text, p_token bigint)
RETURNS TABLE (outcome text, row_id integer, stored_token bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  joined bigint;
  b labs%ROWTYPE;
BEGIN
  IF length(p_value) > 10000 THEN RAISE EXCEPTION 'value must be at most 10000 characters' USING ERRCODE = '22023'; END IF;
  joined := worker_generation(p_lab, p_name, p_instance);
  SELECT * INTO b FROM labs l WHERE l.id = p_lab;
  IF b.kind <> 'fenced' THEN
    RAISE EXCEPTION 'the lab % is not fenced: it has its own write', p_lab USING ERRCODE = 'FL011';
  END IF;
  RETURN QUERY SELECT w.outcome, b.row_id, w.stored_token
                 FROM fl_fenced_write(b.row_id, p_value, p_token, p_name, p_lab, joined) w;
END $$;

-- A broken lab's worker's own (wrong) write, on its lab's own row only (fl_broken_write says which).
CREATE FUNCTION worker_broken_write(p_lab text, p_name text, p_instance text, p_mode text, p_value text,
                                    p_token bigint)
RETURNS TABLE (outcome text, row_id integer, stored_token bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  joined bigint;
  b labs%ROWTYPE;
BEGIN
  IF length(p_value) > 10000 THEN RAISE EXCEPTION 'value must be at most 10000 characters' USING ERRCODE = '22023'; END IF;
  joined := worker_generation(p_lab, p_name, p_instance);
  SELECT * INTO b FROM labs l WHERE l.id = p_lab;
  RETURN QUERY SELECT w.outcome, b.row_id, w.stored_token
                 FROM fl_broken_write(p_lab, b.row_id, p_mode, p_value, p_token, p_name, joined) w;
END $$;

-- The read-check-write lab's read: its own row's token, and no other row's.
CREATE FUNCTION worker_read_own_token(p_lab text, p_name text, p_instance text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  b labs%ROWTYPE;
BEGIN
  PERFORM worker_generation(p_lab, p_name, p_instance);
  SELECT * INTO b FROM labs l WHERE l.id = p_lab;
  IF b.kind <> 'read-check-write' THEN
    RAISE EXCEPTION 'only the read-check-write lab reads before it writes' USING ERRCODE = 'FL011';
  END IF;
  RETURN fl_read_unguarded_token(p_lab, b.row_id);
END $$;

-- What a worker records itself: only these kinds, under its own name, in its own lab and run.
CREATE FUNCTION worker_record_event(p_lab text, p_name text, p_instance text, p_kind text, p_token bigint,
                                    p_detail jsonb) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  joined bigint;
  b labs%ROWTYPE;
BEGIN
  IF p_kind NOT IN ('worker_started', 'worker_restarted', 'worker_stopped', 'worker_crashed', 'write_sent', 'lease_lost',
                    'pause_started', 'pause_ended') THEN
    RAISE EXCEPTION 'a worker does not record % events', p_kind USING ERRCODE = '42501';
  END IF;
  IF octet_length(coalesce(p_detail, '{}'::jsonb)::text) > 20000 THEN
    RAISE EXCEPTION 'an event detail is at most 20000 bytes' USING ERRCODE = '22023';
  END IF;
  joined := worker_generation(p_lab, p_name, p_instance);
  SELECT * INTO b FROM labs l WHERE l.id = p_lab;
  INSERT INTO events (lab, actor, kind, resource, token, detail, generation)
  VALUES (p_lab, p_name, p_kind, b.resource, p_token, coalesce(p_detail, '{}'::jsonb), joined);
END $$;

-- What each role may execute. The worker role: its door above and nothing else (no table, no
-- sequence). The app role: the lease and write rules (0015), the generation
-- check its own events run (the events trigger calls it), a reset's generation bump.
DO $$
DECLARE
  worker text := fencing_lab_role('worker');
  app text := fencing_lab_role('app');
  fn text;
BEGIN
  FOREACH fn IN ARRAY ARRAY[
    'worker_join(text, text, text, jsonb)',
    'worker_beat(text, text, text, text, bigint, timestamptz, boolean)',
    'worker_mark_stopped(text, text, text)',
    'worker_take_commands(text, text, text)',
    'worker_acquire_lease(text, text, text, double precision)',
    'worker_renew_lease(text, text, text, bigint, double precision)',
    'worker_release_lease(text, text, text, bigint)',
    'worker_fenced_write(text, text, text, text, bigint)',
    'worker_broken_write(text, text, text, text, text, bigint)',
    'worker_read_own_token(text, text, text)',
    'worker_record_event(text, text, text, text, bigint, jsonb)'
  ] LOOP
    EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %I', fn, worker);
  END LOOP;
  FOREACH fn IN ARRAY ARRAY[
    'fl_acquire_lease(text, text, double precision, text, bigint, boolean)',
    'fl_renew_lease(text, text, bigint, double precision, text, bigint)',
    'fl_release_lease(text, text, bigint, text, bigint)',
    'fl_fenced_write(integer, text, bigint, text, text, bigint)',
    'fl_broken_write(text, integer, text, text, bigint, text, bigint)',
    'fl_read_unguarded_token(text, integer)',
    'lab_generation_current(text, bigint)',
    'lab_generation_bump(text)',
    'fl_iso(timestamptz)',
    'fl_reset_protected_row(integer, text)',
    'fl_create_protected_row(text)',
    'fl_reset_unguarded_row(text, text)'
  ] LOOP
    EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %I', fn, app);
  END LOOP;
END $$;

-- A reset ends the sessions that hold the lab's generation lock and do not finish (a worker frozen
-- by the operating system in the middle of a transaction): mostly the worker role's, which the app
-- role may not signal. Only sessions holding that lab's lock: they belong to the run being reset.
CREATE FUNCTION fl_end_sessions_holding_lab(p_lab text) RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  -- A two-key advisory lock shows its keys as unsigned 32-bit numbers in classid and objid.
  SELECT count(*) FILTER (WHERE pg_terminate_backend(l.pid))::int
    FROM pg_locks l
   WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 AND l.pid <> pg_backend_pid()
     AND l.classid = (hashtext('fencing_lab.generation')::bigint & 4294967295)::oid
     AND l.objid = (hashtext(p_lab)::bigint & 4294967295)::oid
$$;

-- What the app server needs, and no more: it reads everything a page or a feed shows, records its
-- own events, opens, closes, resets and sweeps labs, keeps trainer sessions and queues commands. It
-- writes no lease, protected row or unguarded row but through the functions above (it may create a
-- broken lab's row, and delete what the retention sweep deletes).
DO $$
DECLARE
  app text := fencing_lab_role('app');
  worker text := fencing_lab_role('worker');
BEGIN
  EXECUTE format('GRANT EXECUTE ON FUNCTION fl_end_sessions_holding_lab(text) TO %I', app);
  EXECUTE format($f$GRANT SELECT ON labs, leases, protected_rows, unguarded_rows, events, remote_workers,
                   worker_commands, trainer_sessions, database_identity, schema_migrations TO %I$f$, app);
  EXECUTE format('GRANT INSERT, DELETE ON events TO %I', app);
  EXECUTE format('GRANT USAGE ON SEQUENCE events_id_seq, unguarded_row_ids, worker_commands_id_seq TO %I', app);
  EXECUTE format('GRANT SELECT ON SEQUENCE write_epoch TO %I', app);
  EXECUTE format('GRANT INSERT, UPDATE (closed_at, history_deleted_at, generation) ON labs TO %I', app);
  EXECUTE format('GRANT INSERT, DELETE ON unguarded_rows TO %I', app);
  EXECUTE format('GRANT DELETE ON leases, remote_workers TO %I', app);
  EXECUTE format('GRANT INSERT, UPDATE (taken_at), DELETE ON worker_commands TO %I', app);
  EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON trainer_sessions TO %I', app);
  -- Signalling a worker's session (above) takes membership in its role; it carries no privilege.
  BEGIN
    EXECUTE format('GRANT %I TO %I', worker, current_user);
  EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE 'the owner could not be made a member of %: a reset cannot end a frozen worker session', worker;
  END;
END $$;
