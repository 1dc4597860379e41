-- The lease and write rules, as functions the owner defines (SECURITY DEFINER, search_path pinned, as
-- PostgreSQL's docs say to write them: "Writing SECURITY DEFINER Functions Safely"). Neither the app
-- role nor the worker role may touch leases, protected_rows or unguarded_rows: these functions are
-- the only way in. The app role executes the fl_* ones (0016); the worker role only the worker_*
-- ones below, which first check who is calling. Every time is the database's clock.

CREATE FUNCTION fl_iso(t timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

-- Grants the lease on p_resource if it is free or expired, with a freshly minted token: from
-- write_epoch (recorded in lease_grants, tied to the resource), or, for the token-as-text labs, from
-- the lab's own staged counter. The grant, its token and its events commit together.
CREATE FUNCTION fl_acquire_lease(p_resource text, p_holder text, p_ttl_ms double precision, p_lab text,
                                 p_generation bigint, p_text_epoch boolean)
RETURNS TABLE (outcome text, lease_resource text, lease_holder text, lease_token bigint,
               lease_acquired_at timestamptz, lease_expires_at timestamptz, prev_holder text, prev_token bigint,
               prev_acquired_at timestamptz, prev_expires_at timestamptz)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  prev leases%ROWTYPE;
  had_prev boolean;
  granted leases%ROWTYPE;
  next_token bigint;
BEGIN
  PERFORM set_config('synchronous_commit', 'on', true);
  -- The generation lock first, before any row lock (0008).
  IF p_generation IS NOT NULL THEN PERFORM lab_generation_current(p_lab, p_generation); END IF;
  SELECT * INTO prev FROM leases l WHERE l.resource = p_resource FOR UPDATE;
  had_prev := FOUND;
  IF had_prev AND prev.expires_at > clock_timestamp() THEN
    RETURN QUERY SELECT 'busy', prev.resource, prev.holder, prev.token, prev.acquired_at, prev.expires_at,
                        NULL::text, NULL::bigint, NULL::timestamptz, NULL::timestamptz;
    RETURN;
  END IF;
  IF p_text_epoch THEN
    UPDATE labs b SET text_epoch = b.text_epoch + 1 WHERE b.id = p_lab RETURNING b.text_epoch INTO next_token;
    IF next_token IS NULL THEN
      RAISE EXCEPTION 'no lab %', p_lab USING ERRCODE = 'FL010';
    END IF;
  ELSE
    next_token := nextval('write_epoch');
  END IF;
  -- A takeover mints a new token too: keeping the old one would let the paused holder's writes in.
  IF had_prev THEN
    UPDATE leases l SET holder = p_holder, token = next_token, acquired_at = clock_timestamp(),
                        expires_at = clock_timestamp() + make_interval(secs => p_ttl_ms / 1000), lab = p_lab
     WHERE l.resource = p_resource RETURNING l.* INTO granted;
  ELSE
    INSERT INTO leases AS l (resource, holder, token, acquired_at, expires_at, lab)
    VALUES (p_resource, p_holder, next_token, clock_timestamp(),
            clock_timestamp() + make_interval(secs => p_ttl_ms / 1000), p_lab)
    ON CONFLICT (resource) DO NOTHING RETURNING l.* INTO granted;
    IF granted.resource IS NULL THEN
      -- Another holder inserted the first lease for this resource a moment ago.
      RETURN QUERY SELECT 'busy', l.resource, l.holder, l.token, l.acquired_at, l.expires_at,
                          NULL::text, NULL::bigint, NULL::timestamptz, NULL::timestamptz
                     FROM leases l WHERE l.resource = p_resource;
      RETURN;
    END IF;
  END IF;
  IF NOT p_text_epoch THEN
    INSERT INTO lease_grants (token, resource, lab, holder) VALUES (next_token, p_resource, p_lab, p_holder);
  END IF;
  IF had_prev THEN
    INSERT INTO events (lab, actor, kind, resource, token, detail, generation)
    VALUES (p_lab, prev.holder, 'lease_expired', p_resource, prev.token,
            jsonb_build_object('expiresAt', fl_iso(prev.expires_at), 'noticedBy', p_holder), p_generation)
    ON CONFLICT DO NOTHING;
  END IF;
  INSERT INTO events (lab, actor, kind, resource, token, detail, generation)
  VALUES (p_lab, p_holder, 'lease_acquired', p_resource, granted.token,
          jsonb_build_object('expiresAt', fl_iso(granted.expires_at), 'ttlMs', p_ttl_ms), p_generation);
  RETURN QUERY SELECT 'granted', granted.resource, granted.holder, granted.token, granted.acquired_at,
                      granted.expires_at,
                      CASE WHEN had_prev THEN prev.holder END, CASE WHEN had_prev THEN prev.token END,
                      CASE WHEN had_prev THEN prev.acquired_at END, CASE WHEN had_prev THEN prev.expires_at END;
END $$;

-- Extends the lease, only while this holder's token is the current one and not expired. Otherwise
-- 'lost', with the current lease if there is one.
CREATE FUNCTION fl_renew_lease(p_resource text, p_holder text, p_token bigint, p_ttl_ms double precision,
                               p_lab text, p_generation bigint)
RETURNS TABLE (outcome text, lease_resource text, lease_holder text, lease_token bigint,
               lease_acquired_at timestamptz, lease_expires_at timestamptz)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  renewed leases%ROWTYPE;
BEGIN
  IF p_generation IS NOT NULL THEN PERFORM lab_generation_current(p_lab, p_generation); END IF;
  UPDATE leases l SET expires_at = clock_timestamp() + make_interval(secs => p_ttl_ms / 1000)
   WHERE l.resource = p_resource AND l.holder = p_holder AND l.token = p_token AND l.expires_at > clock_timestamp()
  RETURNING l.* INTO renewed;
  IF renewed.resource IS NULL THEN
    RETURN QUERY SELECT 'lost', l.resource, l.holder, l.token, l.acquired_at, l.expires_at
                   FROM (SELECT 1) one LEFT JOIN leases l ON l.resource = p_resource;
    RETURN;
  END IF;
  INSERT INTO events (lab, actor, kind, resource, token, detail, generation)
  VALUES (p_lab, p_holder, 'lease_renewed', p_resource, p_token,
          jsonb_build_object('expiresAt', fl_iso(renewed.expires_at), 'ttlMs', p_ttl_ms), p_generation);
  RETURN QUERY SELECT 'renewed', renewed.resource, renewed.holder, renewed.token, renewed.acquired_at,
                      renewed.expires_at;
END $$;

-- Gives the lease up, only if this holder's token is still the current one.
CREATE FUNCTION fl_release_lease(p_resource text, p_holder text, p_token bigint, p_lab text, p_generation bigint)
RETURNS TABLE (outcome text, lease_resource text, lease_holder text, lease_token bigint,
               lease_acquired_at timestamptz, lease_expires_at timestamptz)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
BEGIN
  IF p_generation IS NOT NULL THEN PERFORM lab_generation_current(p_lab, p_generation); END IF;
  DELETE FROM leases l WHERE l.resource = p_resource AND l.holder = p_holder AND l.token = p_token;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'not_held', l.resource, l.holder, l.token, l.acquired_at, l.expires_at
                   FROM (SELECT 1) one LEFT JOIN leases l ON l.resource = p_resource;
    RETURN;
  END IF;
  INSERT INTO events (lab, actor, kind, resource, token, generation)
  VALUES (p_lab, p_holder, 'lease_released', p_resource, p_token, p_generation);
  RETURN QUERY SELECT 'released', NULL::text, NULL::text, NULL::bigint, NULL::timestamptz, NULL::timestamptz;
END $$;

-- THE guard: the seed's statement with `<=`, the check and the write in one atomic statement (under
-- READ COMMITTED a write that waits on a newer writer's row lock re-checks its WHERE after that
-- commit). The row of a lab is written only with a token granted for that lab's resource. The
-- outcome is recorded in the same transaction. 'unknown_row' when there is no such row.
CREATE FUNCTION fl_fenced_write(p_row_id integer, p_value text, p_token bigint, p_actor text, p_lab text,
                                p_generation bigint)
RETURNS TABLE (outcome text, stored_token bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  owner_resource text;
  written bigint;
  stored bigint;
BEGIN
  IF p_generation IS NOT NULL THEN PERFORM lab_generation_current(p_lab, p_generation); END IF;
  SELECT b.resource INTO owner_resource FROM labs b WHERE b.kind = 'fenced' AND b.row_id = p_row_id;
  UPDATE protected_rows p SET value = p_value, last_token = p_token, updated_at = clock_timestamp()
   WHERE p.id = p_row_id AND p.last_token <= p_token
     AND (owner_resource IS NULL
          OR EXISTS (SELECT 1 FROM lease_grants g WHERE g.token = p_token AND g.resource = owner_resource))
  RETURNING p.last_token INTO written;
  IF written IS NULL THEN
    -- Only to explain the refusal: the decision was made atomically above.
    SELECT p.last_token INTO stored FROM protected_rows p WHERE p.id = p_row_id;
    IF NOT FOUND THEN
      RETURN QUERY SELECT 'unknown_row', NULL::bigint;
      RETURN;
    END IF;
    IF p_token >= stored THEN
      RAISE EXCEPTION 'token % was not granted for % (the lease of the lab that owns row %)',
        p_token, owner_resource, p_row_id USING ERRCODE = 'FL009';
    END IF;
  END IF;
  INSERT INTO events (lab, actor, kind, row_id, token, stored_token, outcome, detail, generation)
  VALUES (p_lab, p_actor, CASE WHEN written IS NULL THEN 'write_rejected' ELSE 'write_accepted' END, p_row_id,
          p_token, stored, CASE WHEN written IS NULL THEN 'stale' ELSE 'accepted' END,
          jsonb_build_object('value', p_value), p_generation);
  RETURN QUERY SELECT CASE WHEN written IS NULL THEN 'stale' ELSE 'accepted' END, stored;
END $$;

-- The broken labs' writes, each lab's own mistake and no other, on its own row of unguarded_rows.
-- p_mode: 'plain' (no token check), 'text' (the token compared as text), 'fenced' (the right
-- statement, where the lab's mistake is elsewhere), 'checked-stale' (read-check-write's refusal in
-- the app: recorded, nothing written). Which lab may use which is fixed here.
CREATE FUNCTION fl_broken_write(p_lab text, p_row_id integer, p_mode text, p_value text, p_token bigint,
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
    WHEN lab_kind IN ('per-process-counter', 'bypass') AND p_mode = 'fenced' THEN 'fenced'
    WHEN lab_kind = 'bypass' AND p_mode = 'plain' THEN 'catch-up path, bypasses the guard'
  END;
  IF path IS NULL THEN
    RAISE EXCEPTION 'the lab % (row %) has no % write', p_lab, p_row_id, p_mode USING ERRCODE = 'FL011';
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

-- The read of the read-check-write lab's mistake: its own row's token, read apart from the write.
CREATE FUNCTION fl_read_unguarded_token(p_lab text, p_row_id integer) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  SELECT coalesce((SELECT u.last_token FROM unguarded_rows u WHERE u.id = p_row_id AND u.lab = p_lab), 0)
$$;

-- A lab's row back to `p_value` when the lab is reset, under a freshly minted token: last_token only
-- ever goes up, so no token handed out before the reset can write the row again.
CREATE FUNCTION fl_reset_protected_row(p_id integer, p_value text)
RETURNS TABLE (id integer, value text, last_token bigint, updated_at timestamptz)
LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  INSERT INTO protected_rows AS p (id, value) VALUES (p_id, p_value)
  ON CONFLICT (id) DO UPDATE
    SET value = EXCLUDED.value, last_token = nextval('write_epoch'), updated_at = clock_timestamp()
  RETURNING p.id, p.value, p.last_token, p.updated_at
$$;

-- A new protected row with the next free id, born at the highest token handed out (0005).
CREATE FUNCTION fl_create_protected_row(p_value text)
RETURNS TABLE (id integer, value text, last_token bigint, updated_at timestamptz)
LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  INSERT INTO protected_rows AS p (value) VALUES (p_value) RETURNING p.id, p.value, p.last_token, p.updated_at
$$;

-- A broken lab's row back to its start (and the text lab's token counter restaged).
CREATE FUNCTION fl_reset_unguarded_row(p_lab text, p_value text) RETURNS void
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
  IF b.kind = 'token-as-text' THEN UPDATE labs SET text_epoch = 8 WHERE id = p_lab; END IF;
END $$;
