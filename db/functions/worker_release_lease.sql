-- execute: worker
CREATE OR REPLACE FUNCTION worker_release_lease(p_lab text, p_name text, p_instance text, p_token bigint)
RETURNS TABLE (outcome text, lease_resource text, lease_holder text, lease_token bigint,
               lease_acquired_at timestamptz, lease_expires_at timestamptz)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  joined bigint;
  b labs%ROWTYPE;
BEGIN
  joined := worker_generation(p_lab, p_name, p_instance);
  -- Each call records an event of the lab's own: a rate per worker (0047), FL012 over it.
  PERFORM fl_take_event_budget(p_lab, p_name, 'calls');
  SELECT * INTO b FROM labs l WHERE l.id = p_lab;
  RETURN QUERY SELECT * FROM fl_release_lease(b.resource, p_name, p_token, p_lab, joined);
END $$;
