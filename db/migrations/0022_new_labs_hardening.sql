-- Hardening after a review of issue 13's two labs.
--  * The expiry sweep read a lease without locking it: a renewal that checked `expires_at >
--    clock_timestamp()` just before the lease's end X and committed after X let a concurrent sweep
--    record an expiry at X, and then the real end too (events_lease_expired_once tells leases by
--    token and end, 0021): two lease_expired events for one lease, in any lab. The sweep is now a
--    function that locks the lease rows it reads, skipping those a holder is changing right now:
--    their end is not known until that commits, and the next sweep sees it. It formats the end with
--    fl_iso, the one function every expiry event's `expiresAt` is written with, since the unique
--    index compares those strings.
--  * worker_join stored any clockSlowPercent (5000, -3.5) in any lab. It now takes only a whole
--    percentage from 0 to 90, and only in a drifting-clock lab (shared or private); any other lab
--    answers 'no_clock_drift', with its kind, and stores nothing.
--  * The same-token lab's write (fl_broken_write, mode 'fenced') took any token: a worker writing
--    9000000000000000000 wedged the shared lab until a reset. It now takes only a token granted to
--    that writer in that lab and run, as the fenced lab's worker_fenced_write does (0020).

-- Records the expiry of every lease that has run out by the database's clock and is not recorded
-- yet. Returns how many it recorded. The app role may not lock leases itself (it may not update
-- them): this function, the owner's, does it for the server's sweep.
CREATE FUNCTION fl_record_expired_leases() RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  recorded integer;
BEGIN
  INSERT INTO events (lab, actor, kind, resource, token, detail)
  SELECT l.lab, l.holder, 'lease_expired', l.resource, l.token,
         jsonb_build_object('expiresAt', fl_iso(l.expires_at), 'noticedBy', 'database clock')
    FROM leases l
   WHERE l.expires_at <= clock_timestamp()
     -- Once per lease: its token and its end (one token may be held by two leases in turn in the
     -- same-token-takeover lab, 0021). The next taker may have recorded it already.
     AND NOT EXISTS (SELECT 1 FROM events e
                      WHERE e.kind = 'lease_expired' AND e.resource = l.resource AND e.token = l.token
                        AND e.detail ->> 'expiresAt' = fl_iso(l.expires_at))
   -- In the order of the labs' events locks (0009_events_lock_per_lab.sql): two sweeps never deadlock.
   ORDER BY hashtext(l.lab), l.lab, l.expires_at
   -- A lease a renewal, grant or release is changing is skipped, not waited for, nor read as it was.
   FOR UPDATE OF l SKIP LOCKED
  ON CONFLICT DO NOTHING;
  GET DIAGNOSTICS recorded = ROW_COUNT;
  RETURN recorded;
END $$;

DO $$
BEGIN
  EXECUTE format('GRANT EXECUTE ON FUNCTION fl_record_expired_leases() TO %I', fencing_lab_role('app'));
END $$;

-- worker_join as 0020 made it, with the drift setting checked (above).
CREATE OR REPLACE FUNCTION worker_join(p_lab text, p_name text, p_instance text, p_settings jsonb,
                            p_join_key text DEFAULT NULL)
RETURNS TABLE (refusal text, generation bigint, kind text, row_id integer, resource text, visibility text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  b labs%ROWTYPE;
  last_local text;
  joined bigint;
  drift numeric;
BEGIN
  IF p_instance IS NULL OR length(p_instance) < 16 OR length(p_instance) > 64 THEN
    RAISE EXCEPTION 'an instance is 16 to 64 characters' USING ERRCODE = '22023';
  END IF;
  -- A name as the app's own rules make it (lib/model/lab-inputs.ts workerNameSchema), and settings
  -- that are small and name the same worker: the servers show them and may restart from them.
  IF p_name IS NULL OR length(p_name) > 40 OR p_name !~ '^[[:alpha:][:digit:] _.-]+$' OR p_name ~* '^w[0-9]+$' THEN
    RAISE EXCEPTION 'a worker name holds 1 to 40 letters, digits, spaces, _ . - (and is not like w1)'
      USING ERRCODE = '22023';
  END IF;
  IF p_settings IS NULL OR jsonb_typeof(p_settings) <> 'object' OR octet_length(p_settings::text) > 1000
     OR p_settings ->> 'name' IS DISTINCT FROM p_name THEN
    RAISE EXCEPTION 'a worker''s settings are a small object that names it' USING ERRCODE = '22023';
  END IF;
  -- The drifting-clock lab's setting, as the app's own rule makes it (lib/model/lab-inputs.ts
  -- workerSettingsSchema clockSlowPercent): a whole percentage from 0 to 90.
  IF p_settings ? 'clockSlowPercent' THEN
    drift := CASE WHEN jsonb_typeof(p_settings -> 'clockSlowPercent') = 'number'
                  THEN (p_settings ->> 'clockSlowPercent')::numeric END;
    IF drift IS NULL OR drift NOT BETWEEN 0 AND 90 OR drift <> trunc(drift) THEN
      RAISE EXCEPTION 'a clock drift (clockSlowPercent) is a whole percentage from 0 to 90' USING ERRCODE = '22023';
    END IF;
  END IF;
  SELECT * INTO b FROM labs l WHERE l.id = p_lab AND l.history_deleted_at IS NULL;
  -- A private lab is joined only with its join key, which its server gives the workers it starts: its
  -- id alone (a notification may carry it) is no way in. Refused as if there were no such lab.
  IF FOUND AND b.visibility = 'private' AND (p_join_key IS NULL OR p_join_key IS DISTINCT FROM b.join_key) THEN
    RETURN QUERY SELECT 'no_lab', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'no_lab', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  IF b.closed_at IS NOT NULL THEN
    RETURN QUERY SELECT 'closed', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  -- Only the drifting-clock lab's workers have a drifting clock (shared or private): refused, with the
  -- lab's kind for the worker's message, before anything of it is stored.
  IF p_settings ? 'clockSlowPercent' AND b.kind <> 'drifting-clock' THEN
    RETURN QUERY SELECT 'no_clock_drift', NULL::bigint, b.kind, NULL::integer, NULL::text, NULL::text;
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
  -- At most MAX_STATUS_ROWS workers in a run of a lab (live, or kept as restartable): a script cannot
  -- plant lanes without end.
  IF (SELECT count(*) FROM remote_workers r
       WHERE r.lab = p_lab AND r.generation = b.generation AND r.name <> p_name
         AND ((r.stopped_at IS NULL AND r.heartbeat_at > clock_timestamp() - interval '5 seconds')
              OR (r.server IS NOT NULL AND r.phase <> 'stopped'))) >= 16 THEN
    RETURN QUERY SELECT 'full', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
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

-- A lab's grants of a token, as the same-token lab's write looks them up.
CREATE INDEX events_lease_acquired ON events (lab, token) WHERE kind = 'lease_acquired';

-- The broken labs' writes as 0021 made them, with the same-token lab's token check (above).
CREATE OR REPLACE FUNCTION fl_broken_write(p_lab text, p_row_id integer, p_mode text, p_value text, p_token bigint,
                                           p_actor text, p_generation bigint)
RETURNS TABLE (outcome text, stored_token bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  lab_kind text;
  path text;
  written boolean := false;
  stored bigint;
BEGIN
  IF p_generation IS NOT NULL THEN PERFORM lab_generation_current(p_lab, p_generation); END IF;
  SELECT b.kind INTO lab_kind FROM labs b WHERE b.id = p_lab AND b.row_id = p_row_id AND b.kind <> 'fenced';
  path := CASE
    WHEN lab_kind = 'no-fencing' AND p_mode = 'plain' THEN 'no token check'
    WHEN lab_kind = 'read-check-write' AND p_mode = 'plain' THEN 'checked in the app, written unconditionally'
    WHEN lab_kind = 'read-check-write' AND p_mode = 'checked-stale' THEN 'checked in the app'
    WHEN lab_kind = 'token-as-text' AND p_mode = 'text' THEN 'compared as text'
    WHEN lab_kind IN ('per-process-counter', 'bypass', 'same-token-takeover') AND p_mode = 'fenced' THEN 'fenced'
    WHEN lab_kind = 'bypass' AND p_mode = 'plain' THEN 'catch-up path, bypasses the guard'
    WHEN lab_kind = 'drifting-clock' AND p_mode = 'plain' THEN 'no token check'
  END;
  IF path IS NULL THEN
    RAISE EXCEPTION 'the lab % (row %) has no % write', p_lab, p_row_id, p_mode USING ERRCODE = 'FL011';
  END IF;
  -- The same-token lab's write takes only a token granted to this writer in this lab, and in this run
  -- when the writer is a worker (p_generation): a made-up token far above the others would wedge the
  -- lab's row until a reset. Its grants are lease_acquired events, fresh ones and takeovers alike (a
  -- takeover keeps the token, so it has no lease_grants row of its own): A's and B's grants of one
  -- token both count, and the stale holder's late write with it still passes, as the lab shows.
  IF lab_kind = 'same-token-takeover'
     AND NOT EXISTS (SELECT 1 FROM events e
                      WHERE e.lab = p_lab AND e.kind = 'lease_acquired' AND e.token = p_token AND e.actor = p_actor
                        AND (p_generation IS NULL OR e.generation = p_generation)) THEN
    RAISE EXCEPTION 'token % was not granted to % in the lab %', p_token, p_actor, p_lab USING ERRCODE = 'FL009';
  END IF;
  IF p_mode <> 'checked-stale' THEN
    UPDATE unguarded_rows u
       SET value = p_value, last_token = p_token, last_token_text = p_token::text, updated_at = clock_timestamp()
     WHERE u.id = p_row_id AND u.lab = p_lab
       AND (p_mode = 'plain' OR (p_mode = 'text' AND u.last_token_text <= p_token::text)
            OR (p_mode = 'fenced' AND u.last_token <= p_token));
    written := FOUND;
  END IF;
  IF NOT written THEN
    SELECT coalesce((SELECT u.last_token FROM unguarded_rows u WHERE u.id = p_row_id AND u.lab = p_lab), 0)
      INTO stored;
  END IF;
  INSERT INTO events (lab, actor, kind, row_id, token, stored_token, outcome, detail, generation)
  VALUES (p_lab, p_actor, CASE WHEN written THEN 'write_accepted' ELSE 'write_rejected' END, p_row_id, p_token,
          stored, CASE WHEN written THEN 'accepted' ELSE 'stale' END,
          jsonb_build_object('value', p_value, 'table', 'unguarded_rows', 'path', path), p_generation);
  RETURN QUERY SELECT CASE WHEN written THEN 'accepted' ELSE 'stale' END, stored;
END $$;
