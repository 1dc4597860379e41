-- execute: app
-- THE DELIBERATELY BROKEN TAKEOVER (do not copy): the same-token-takeover lab's lease service. A
-- fresh grant (no lease yet, or the holder's own expired lease) goes through fl_acquire_lease and
-- mints a token as usual. Taking over a lease that expired under ANOTHER holder keeps the old
-- holder's token: the mistake. A token must be minted in the same committed transaction that
-- records its grant, for every grant, takeover included; here the takeover mints nothing, so two
-- holders present the same token, and `last_token <= token` lets both write. Only this lab's kind.
CREATE OR REPLACE FUNCTION fl_broken_takeover_same_token(p_resource text, p_holder text, p_ttl_ms double precision,
                                              p_lab text, p_generation bigint)
RETURNS TABLE (outcome text, lease_resource text, lease_holder text, lease_token bigint,
               lease_acquired_at timestamptz, lease_expires_at timestamptz, prev_holder text, prev_token bigint,
               prev_acquired_at timestamptz, prev_expires_at timestamptz)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  prev leases%ROWTYPE;
  granted leases%ROWTYPE;
BEGIN
  PERFORM set_config('synchronous_commit', 'on', true);
  IF NOT EXISTS (SELECT 1 FROM labs b JOIN lab_kinds k ON k.id = b.kind
                  WHERE b.id = p_lab AND b.resource = p_resource AND k.token_source = 'kept-on-takeover') THEN
    RAISE EXCEPTION 'only the same-token-takeover lab takes over without a new token (not %)', p_lab
      USING ERRCODE = 'FL011';
  END IF;
  -- The generation lock first, before any row lock (0008).
  IF p_generation IS NOT NULL THEN PERFORM lab_generation_current(p_lab, p_generation); END IF;
  SELECT * INTO prev FROM leases l WHERE l.resource = p_resource FOR UPDATE;
  IF NOT FOUND OR prev.holder = p_holder THEN
    -- A fresh grant: minted as usual, by the right function.
    RETURN QUERY SELECT * FROM fl_acquire_lease(p_resource, p_holder, p_ttl_ms, p_lab, p_generation, false);
    RETURN;
  END IF;
  IF prev.expires_at > clock_timestamp() THEN
    RETURN QUERY SELECT 'busy', prev.resource, prev.holder, prev.token, prev.acquired_at, prev.expires_at,
                        NULL::text, NULL::bigint, NULL::timestamptz, NULL::timestamptz;
    RETURN;
  END IF;
  -- The mistake: the takeover keeps prev.token instead of nextval('write_epoch').
  UPDATE leases l SET holder = p_holder, acquired_at = clock_timestamp(),
                      expires_at = clock_timestamp() + make_interval(secs => p_ttl_ms / 1000)
   WHERE l.resource = p_resource RETURNING l.* INTO granted;
  INSERT INTO events (lab, actor, kind, resource, token, detail, generation)
  VALUES (p_lab, prev.holder, 'lease_expired', p_resource, prev.token,
          jsonb_build_object('expiresAt', fl_iso(prev.expires_at), 'noticedBy', p_holder), p_generation)
  ON CONFLICT DO NOTHING;
  INSERT INTO events (lab, actor, kind, resource, token, detail, generation)
  VALUES (p_lab, p_holder, 'lease_acquired', p_resource, granted.token,
          jsonb_build_object('expiresAt', fl_iso(granted.expires_at), 'ttlMs', p_ttl_ms,
                             'takeover', 'kept the token', 'tokenOf', prev.holder), p_generation);
  RETURN QUERY SELECT 'granted', granted.resource, granted.holder, granted.token, granted.acquired_at,
                      granted.expires_at, prev.holder, prev.token, prev.acquired_at, prev.expires_at;
END $$;
