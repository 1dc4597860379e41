-- execute: app
-- Records the expiry of every lease that has run out by the database's clock and is not recorded
-- yet. Returns how many it recorded. The app role may not lock leases itself (it may not update
-- them): this function, the owner's, does it for the server's expiry recorder.
--
-- Lab by lab: a lab whose events lock another session holds (a worker idle in a transaction after
-- recording an event, in its own private lab) is skipped this round, not waited for, so no lab delays
-- another's expiry; the recorder's next pass (50 ms on) tries it again, and the watchdog ends such a session.
CREATE OR REPLACE FUNCTION fl_record_expired_leases() RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  expired_lab text;
  recorded integer := 0;
  n integer;
BEGIN
  FOR expired_lab IN
    SELECT DISTINCT l.lab FROM leases l WHERE l.expires_at <= clock_timestamp()
  LOOP
    CONTINUE WHEN NOT pg_try_advisory_xact_lock(hashtext('fencing_lab.events'), hashtext(expired_lab));
    INSERT INTO events (lab, actor, kind, resource, token, detail)
    SELECT l.lab, l.holder, 'lease_expired', l.resource, l.token,
           jsonb_build_object('expiresAt', fl_iso(l.expires_at), 'noticedBy', 'database clock')
      FROM leases l
     WHERE l.lab = expired_lab AND l.expires_at <= clock_timestamp()
       -- Once per lease: its token and its end (one token may be held by two leases in turn in the
       -- same-token-takeover lab, 0021). The next taker may have recorded it already.
       AND NOT EXISTS (SELECT 1 FROM events e
                        WHERE e.kind = 'lease_expired' AND e.resource = l.resource AND e.token = l.token
                          AND e.detail ->> 'expiresAt' = fl_iso(l.expires_at))
     ORDER BY l.expires_at
     -- A lease a renewal, grant or release is changing is skipped, not waited for, nor read as it was.
     FOR UPDATE OF l SKIP LOCKED
    ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS n = ROW_COUNT;
    recorded := recorded + n;
  END LOOP;
  RETURN recorded;
END $$;
