-- execute: worker
-- A worker that judges its lease by the database's clock (issue 13 part 3, beside the drifting clock):
-- before each write it asks the database, not its own clock, whether its lease still runs. The
-- answer is read on clock_timestamp(), the clock every lease's expiry is set and judged by.
-- It answers only in a drifting-clock lab (the only labs whose workers have the setting), about the
-- asking worker's own lease in its own lab and run (worker_generation): whether its lease with that
-- token still runs and when it ends (or ended), or, when the lease is no longer its own, who holds
-- it now (as a refused renewal or a busy grant already tells it).
CREATE OR REPLACE FUNCTION worker_lease_by_database_clock(p_lab text, p_name text, p_instance text, p_token bigint)
RETURNS TABLE (holding boolean, expires_at timestamptz, held_by text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  b labs%ROWTYPE;
  l leases%ROWTYPE;
BEGIN
  PERFORM worker_generation(p_lab, p_name, p_instance);
  SELECT * INTO b FROM labs x WHERE x.id = p_lab;
  IF NOT (SELECT k.drifting_clock FROM lab_kinds k WHERE k.id = b.kind) THEN
    RAISE EXCEPTION 'only the drifting-clock labs'' workers judge their lease by the database''s clock (not %)', p_lab
      USING ERRCODE = 'FL011';
  END IF;
  SELECT * INTO l FROM leases x WHERE x.resource = b.resource;
  IF NOT FOUND OR l.holder IS DISTINCT FROM p_name OR l.token IS DISTINCT FROM p_token THEN
    RETURN QUERY SELECT false, NULL::timestamptz, l.holder;
    RETURN;
  END IF;
  RETURN QUERY SELECT l.expires_at > clock_timestamp(), l.expires_at, l.holder;
END $$;
