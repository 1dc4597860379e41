-- execute: worker
-- The worker's door to it: the lab, resource and run from the database, as worker_acquire_lease
-- does, and only in a lab of that kind. Every other lab's worker has worker_acquire_lease alone.
CREATE OR REPLACE FUNCTION worker_acquire_lease_same_token(p_lab text, p_name text, p_instance text, p_ttl_ms double precision)
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
  -- Each call records an event of the lab's own: a rate per worker (0047), FL012 over it.
  PERFORM fl_take_event_budget(p_lab, p_name, 'calls');
  SELECT * INTO b FROM labs l WHERE l.id = p_lab;
  IF (SELECT k.token_source FROM lab_kinds k WHERE k.id = b.kind) <> 'kept-on-takeover' THEN
    RAISE EXCEPTION 'the lab % takes over with a new token: its workers use worker_acquire_lease', p_lab
      USING ERRCODE = 'FL011';
  END IF;
  RETURN QUERY SELECT * FROM fl_broken_takeover_same_token(b.resource, p_name, p_ttl_ms, p_lab, joined);
END $$;
