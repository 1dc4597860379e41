-- execute: app
-- Gives the lease up, only if this holder's token is still the current one.
CREATE OR REPLACE FUNCTION fl_release_lease(p_resource text, p_holder text, p_token bigint, p_lab text, p_generation bigint)
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
