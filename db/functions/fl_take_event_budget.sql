-- execute: owner
-- One event of a worker's budget (worker_event_budgets, 0047), or FL012 when it has none left: a
-- bucket of fl_bound('worker_event_burst') events, refilled at fl_bound('worker_events_per_second'),
-- per worker name per lab. The row stays locked until the caller's transaction ends, so two sessions
-- of one name spend it in turn. A refused call writes nothing: it raises before the upsert.
CREATE OR REPLACE FUNCTION fl_take_event_budget(p_lab text, p_name text) RETURNS void
LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
DECLARE
  burst double precision := fl_bound('worker_event_burst');
  rate double precision := fl_bound('worker_events_per_second');
  t timestamptz := clock_timestamp();
  budget double precision;
BEGIN
  SELECT least(burst, b.tokens + rate * greatest(0, extract(epoch FROM t - b.at)))
    INTO budget FROM worker_event_budgets b WHERE b.lab = p_lab AND b.name = p_name FOR UPDATE;
  IF NOT FOUND THEN budget := burst; END IF;
  IF budget < 1 THEN
    RAISE EXCEPTION 'a worker records at most % events a second (% at once): % recorded too many, wait',
      rate, burst, p_name USING ERRCODE = 'FL012';
  END IF;
  INSERT INTO worker_event_budgets AS b (lab, name, tokens, at) VALUES (p_lab, p_name, budget - 1, t)
  ON CONFLICT (lab, name) DO UPDATE SET tokens = EXCLUDED.tokens, at = EXCLUDED.at;
END $$;
