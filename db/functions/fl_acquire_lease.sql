-- execute: app
-- Grants the lease on p_resource if it is free or expired, with a freshly minted token: from
-- write_epoch (recorded in lease_grants, tied to the resource), or, for the token-as-text labs, from
-- the lab's own staged counter. The grant, its token and its events commit together.
CREATE OR REPLACE FUNCTION fl_acquire_lease(p_resource text, p_holder text, p_ttl_ms double precision, p_lab text,
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
