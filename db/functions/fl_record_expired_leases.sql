-- execute: app
-- Records the expiry of every lease that has run out by the database's clock and is not recorded
-- yet. Returns how many it recorded. The app role may not lock leases itself (it may not update
-- them): this function, the owner's, does it for the server's sweep.
CREATE OR REPLACE FUNCTION fl_record_expired_leases() RETURNS integer
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
