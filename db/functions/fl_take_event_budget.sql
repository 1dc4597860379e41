-- execute: owner
-- One event of a worker's budget (worker_event_budgets, 0047), or FL012 when it has none left, per
-- worker name per lab: 'told', what it records itself (worker_record_event), a bucket of
-- fl_bound('worker_event_burst') refilled at fl_bound('worker_events_per_second'); 'calls', its
-- grants, renewals, releases and writes, each of which records an event (worker_call_burst,
-- worker_calls_per_second). The row stays locked until the caller's transaction ends, so two sessions
-- of one name spend it in turn. A refused call writes nothing: it raises before the upsert.
CREATE OR REPLACE FUNCTION fl_take_event_budget(p_lab text, p_name text, p_budget text) RETURNS void
LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
DECLARE
  burst double precision := fl_bound(CASE p_budget WHEN 'told' THEN 'worker_event_burst' ELSE 'worker_call_burst' END);
  rate double precision := fl_bound(CASE p_budget WHEN 'told' THEN 'worker_events_per_second'
                                                  ELSE 'worker_calls_per_second' END);
  t timestamptz := clock_timestamp();
  spare double precision;
BEGIN
  SELECT least(burst, b.tokens + rate * greatest(0, extract(epoch FROM t - b.at)))
    INTO spare FROM worker_event_budgets b WHERE b.lab = p_lab AND b.name = p_name AND b.budget = p_budget FOR UPDATE;
  IF NOT FOUND THEN spare := burst; END IF;
  IF spare < 1 THEN
    RAISE EXCEPTION '%', CASE p_budget
      WHEN 'told' THEN format('a worker records at most %s events a second (%s at once): %s recorded too many, wait',
                              rate, burst, p_name)
      ELSE format('a worker takes, renews, releases or writes at most %s times a second (%s at once): %s called too often, wait',
                  rate, burst, p_name) END USING ERRCODE = 'FL012';
  END IF;
  INSERT INTO worker_event_budgets AS b (lab, name, budget, tokens, at) VALUES (p_lab, p_name, p_budget, spare - 1, t)
  ON CONFLICT (lab, name, budget) DO UPDATE SET tokens = EXCLUDED.tokens, at = EXCLUDED.at;
END $$;
