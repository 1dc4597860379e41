-- execute: app
-- Extends the lease, only while this holder's token is the current one and not expired. Otherwise
-- 'lost', with the current lease if there is one.
CREATE OR REPLACE FUNCTION fl_renew_lease(p_resource text, p_holder text, p_token bigint, p_ttl_ms double precision,
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
