-- execute: owner
-- One event of a worker's budget (worker_event_budgets, 0047), or FL012 when it has none left, per
-- worker name per lab: 'told', what it records itself (worker_record_event), a bucket of
-- fl_bound('worker_event_burst') refilled at fl_bound('worker_events_per_second'); 'calls', its
-- grants, renewals, releases and writes, each of which records an event (worker_call_burst,
-- worker_calls_per_second). A person's worker line (0046) spends from a bucket of its own in the lab
-- as well, fl_bound('worker_line_workers') times as large, kept under '@' and its role's name (no
-- worker name holds '@'): a name is free to choose and came with a fresh burst, so joining under a
-- new name for each burst recorded 5,000 events in 2 s from one connection. The rows stay locked
-- until the caller's transaction ends, so two sessions spend them in turn. A refused call writes
-- nothing: it raises before the upserts.
CREATE OR REPLACE FUNCTION fl_take_event_budget(p_lab text, p_name text, p_budget text) RETURNS void
LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
DECLARE
  burst double precision := fl_bound(CASE p_budget WHEN 'told' THEN 'worker_event_burst' ELSE 'worker_call_burst' END);
  rate double precision := fl_bound(CASE p_budget WHEN 'told' THEN 'worker_events_per_second'
                                                  ELSE 'worker_calls_per_second' END);
  t timestamptz := clock_timestamp();
  key text;
  scale double precision;
  spare double precision;
  spent text[] := '{}';
  spares double precision[] := '{}';
BEGIN
  FOR key, scale IN
    SELECT p_name, 1::double precision
    UNION ALL
    SELECT '@' || session_user, fl_bound('worker_line_workers')::double precision WHERE fl_is_worker_line(session_user)
  LOOP
    SELECT least(burst * scale, b.tokens + rate * scale * greatest(0, extract(epoch FROM t - b.at)))
      INTO spare FROM worker_event_budgets b WHERE b.lab = p_lab AND b.name = key AND b.budget = p_budget FOR UPDATE;
    IF NOT FOUND THEN spare := burst * scale; END IF;
    IF spare < 1 THEN
      RAISE EXCEPTION '%', CASE p_budget
        WHEN 'told' THEN format('a worker records at most %s events a second (%s at once): %s recorded too many, wait',
                                rate * scale, burst * scale, CASE WHEN scale = 1 THEN p_name ELSE 'this worker line' END)
        ELSE format('a worker takes, renews, releases or writes at most %s times a second (%s at once): %s called too often, wait',
                    rate * scale, burst * scale, CASE WHEN scale = 1 THEN p_name ELSE 'this worker line' END) END
        USING ERRCODE = 'FL012';
    END IF;
    spent := spent || key;
    spares := spares || spare;
  END LOOP;
  FOR i IN 1 .. cardinality(spent) LOOP
    INSERT INTO worker_event_budgets AS b (lab, name, budget, tokens, at) VALUES (p_lab, spent[i], p_budget, spares[i] - 1, t)
    ON CONFLICT (lab, name, budget) DO UPDATE SET tokens = EXCLUDED.tokens, at = EXCLUDED.at;
  END LOOP;
END $$;
