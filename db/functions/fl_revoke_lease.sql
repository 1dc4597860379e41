-- execute: app
-- A forced takeover (issue 14, chaos aimed at the window): the lease service ends a holder's lease
-- early, as one does when it wrongly judges a live holder dead (its heartbeats lost, the service's
-- own pause). The holder is not told: it keeps writing with its token until its next renewal is
-- refused (fl_renew_lease refuses an expired lease), while another worker takes the lease with a
-- newer token. Its writes in between are stale, and a fenced row must refuse every one of them.
-- The app role may not update leases itself: this function, the owner's, does it for a chaos run,
-- and records the early end as the expiry recorder records an expiry (once per lease and end).
CREATE OR REPLACE FUNCTION fl_revoke_lease(p_resource text)
RETURNS TABLE (holder text, token bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  revoked leases%ROWTYPE;
BEGIN
  UPDATE leases l SET expires_at = clock_timestamp()
   WHERE l.resource = p_resource AND l.expires_at > clock_timestamp()
  RETURNING l.* INTO revoked;
  IF NOT FOUND THEN RETURN; END IF;
  INSERT INTO events (lab, actor, kind, resource, token, detail)
  VALUES (revoked.lab, revoked.holder, 'lease_expired', revoked.resource, revoked.token,
          jsonb_build_object('expiresAt', fl_iso(revoked.expires_at), 'noticedBy', 'database clock',
                             'revoked', 'a forced takeover: the lease service ended it early'))
  ON CONFLICT DO NOTHING;
  RETURN QUERY SELECT revoked.holder, revoked.token;
END $$;
