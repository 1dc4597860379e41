-- Two more ways a lock holder outlives its lease (issue 13), each a broken lab on a row of its own in
-- unguarded_rows, as the others:
--  * same-token-takeover: a lease service whose takeover path (acquiring a lease that expired under
--    another holder) hands the new holder the old holder's token instead of minting one. Its writes
--    are fenced with the right `<=` statement on its own row: with two holders on one token, the
--    stale holder's late write passes. The broken takeover is fl_broken_takeover_same_token below,
--    reached only through worker_acquire_lease_same_token, which refuses every other lab. The
--    fenced lab's functions (fl_acquire_lease, fl_fenced_write, worker_acquire_lease,
--    worker_fenced_write) are not touched: every other lab mints a token on every grant.
--  * drifting-clock: the lease service is the right one; the worker judges its lease by its own
--    clock, which runs slow (lib/worker/drifting-clock.ts), and writes without fencing.

ALTER TABLE labs DROP CONSTRAINT labs_kind_check;
ALTER TABLE labs ADD CONSTRAINT labs_kind_check
  CHECK (kind IN ('fenced', 'no-fencing', 'read-check-write', 'token-as-text', 'per-process-counter', 'bypass',
                  'same-token-takeover', 'drifting-clock'));

INSERT INTO labs (id, kind, row_id, resource, visibility) VALUES
  ('same-token-takeover', 'same-token-takeover', 6, 'lab/same-token-takeover', 'shared'),
  ('drifting-clock', 'drifting-clock', 7, 'lab/drifting-clock', 'shared')
ON CONFLICT DO NOTHING;

-- Their rows from the start, as 0013 gave the others.
INSERT INTO unguarded_rows (id, lab, value) VALUES (6, 'same-token-takeover', 'initial'), (7, 'drifting-clock', 'initial')
ON CONFLICT DO NOTHING;

-- A lease's expiry is recorded once per lease, and a lease was told by its token alone. In the
-- same-token lab one token is held by several leases in turn (A's, then B's after the takeover), so
-- each one's expiry is told by its token and its end: the one recorded once. For every other lab a
-- token has one lease, and this is the same rule.
DROP INDEX events_lease_expired_once;
CREATE UNIQUE INDEX events_lease_expired_once ON events (resource, token, (detail ->> 'expiresAt'))
  WHERE kind = 'lease_expired';

-- THE DELIBERATELY BROKEN TAKEOVER (do not copy): the same-token-takeover lab's lease service. A
-- fresh grant (no lease yet, or the holder's own expired lease) goes through fl_acquire_lease and
-- mints a token as usual. Taking over a lease that expired under ANOTHER holder keeps the old
-- holder's token: the mistake. A token must be minted in the same committed transaction that
-- records its grant, for every grant, takeover included; here the takeover mints nothing, so two
-- holders present the same token, and `last_token <= token` lets both write. Only this lab's kind.
CREATE FUNCTION fl_broken_takeover_same_token(p_resource text, p_holder text, p_ttl_ms double precision,
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
  IF NOT EXISTS (SELECT 1 FROM labs b WHERE b.id = p_lab AND b.resource = p_resource AND b.kind = 'same-token-takeover') THEN
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

-- The worker's door to it: the lab, resource and run from the database, as worker_acquire_lease
-- does, and only in a lab of that kind. Every other lab's worker has worker_acquire_lease alone.
CREATE FUNCTION worker_acquire_lease_same_token(p_lab text, p_name text, p_instance text, p_ttl_ms double precision)
RETURNS TABLE (outcome text, lease_resource text, lease_holder text, lease_token bigint,
               lease_acquired_at timestamptz, lease_expires_at timestamptz, prev_holder text, prev_token bigint,
               prev_acquired_at timestamptz, prev_expires_at timestamptz)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  joined bigint;
  b labs%ROWTYPE;
BEGIN
  PERFORM worker_check_ttl(p_ttl_ms);
  joined := worker_generation(p_lab, p_name, p_instance);
  SELECT * INTO b FROM labs l WHERE l.id = p_lab;
  IF b.kind <> 'same-token-takeover' THEN
    RAISE EXCEPTION 'the lab % takes over with a new token: its workers use worker_acquire_lease', p_lab
      USING ERRCODE = 'FL011';
  END IF;
  RETURN QUERY SELECT * FROM fl_broken_takeover_same_token(b.resource, p_name, p_ttl_ms, p_lab, joined);
END $$;

-- The broken labs' writes (0015), with the two new labs' own: the same-token lab writes with the
-- right `<=` statement (its mistake is in its lease service); the drifting-clock lab with no check.
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

-- The worker role: its new door only. The app role: the broken takeover itself, like fl_acquire_lease
-- (it refuses every lab but its own). Neither has anything else new.
DO $$
BEGIN
  EXECUTE format('GRANT EXECUTE ON FUNCTION worker_acquire_lease_same_token(text, text, text, double precision) TO %I',
                 fencing_lab_role('worker'));
  EXECUTE format('GRANT EXECUTE ON FUNCTION fl_broken_takeover_same_token(text, text, double precision, text, bigint) TO %I',
                 fencing_lab_role('app'));
END $$;
