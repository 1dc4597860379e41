-- execute: app
-- Records the expiry of every lease that has run out by the database's clock and is not recorded
-- yet. Returns how many it recorded. The app role may not lock leases itself (it may not update
-- them): this function, the owner's, does it for the server's expiry recorder.
--
-- Lab by lab: a lab whose events lock another session holds (a worker idle in a transaction after
-- recording an event, in its own private lab) is skipped this round, not waited for, so no lab delays
-- another's expiry; the recorder's next pass (50 ms on) tries it again, and the watchdog ends such a
-- session. An expiry 200 ms overdue is waited for, 400 ms at most (below).
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
    IF NOT pg_try_advisory_xact_lock(hashtext('fencing_lab.events'), hashtext(expired_lab)) THEN
      -- Skipped while its expiry is fresh. Once one not yet recorded is 200 ms overdue, this pass
      -- waits for the lock (400 ms at most): a session that takes it again the moment the watchdog
      -- ended the last one (a person's line, in a loop) would otherwise win every try, and the
      -- expiry go unrecorded for seconds. Waiting, this pass is queued ahead of that session's next
      -- try, and the watchdog ends the holder a waiter waits on within 150 ms.
      CONTINUE WHEN NOT EXISTS (
        SELECT 1 FROM leases l
         WHERE l.lab = expired_lab AND l.expires_at <= clock_timestamp() - interval '200 milliseconds'
           AND NOT EXISTS (SELECT 1 FROM events e
                            WHERE e.kind = 'lease_expired' AND e.resource = l.resource AND e.token = l.token
                              AND e.detail ->> 'expiresAt' = fl_iso(l.expires_at)));
      BEGIN
        PERFORM set_config('lock_timeout', '400ms', true);
        PERFORM pg_advisory_xact_lock(hashtext('fencing_lab.events'), hashtext(expired_lab));
      EXCEPTION WHEN lock_not_available THEN
        CONTINUE;
      END;
    END IF;
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
