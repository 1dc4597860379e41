-- execute: worker
-- What a worker records itself: only these kinds, under its own name, in its own lab and run.
CREATE OR REPLACE FUNCTION worker_record_event(p_lab text, p_name text, p_instance text, p_kind text, p_token bigint,
                                    p_detail jsonb) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  joined bigint;
  b labs%ROWTYPE;
  waited text;
BEGIN
  IF p_kind NOT IN ('worker_started', 'worker_restarted', 'worker_stopped', 'worker_crashed', 'write_sent', 'lease_lost',
                    'pause_started', 'pause_ended') THEN
    RAISE EXCEPTION 'a worker does not record % events', p_kind USING ERRCODE = '42501';
  END IF;
  -- Bounds from lib/model/core/input-bounds.ts (fl_bound): the detail ours send, with room; and a
  -- rate per worker name per lab (fl_take_event_budget, FL012: the worker skips the event and goes on).
  IF octet_length(coalesce(p_detail, '{}'::jsonb)::text) > fl_bound('event_detail_max_bytes') THEN
    RAISE EXCEPTION 'an event detail is at most % bytes', fl_bound('event_detail_max_bytes') USING ERRCODE = '22023';
  END IF;
  IF p_kind = 'write_sent' THEN
    -- The lane's critical window (issue 36): while its --exec runner has armed a critical pause, it
    -- holds this lock (worker_hold_critical_window) and lets go once it has frozen the program, so
    -- the program is frozen after deciding to write and before its write. Otherwise free at once.
    -- Only a running worker's own call waits, at most 400 ms (the runner looks every 10 ms), and
    -- before the run's lock is taken (worker_generation), so that a Reset never waits on it.
    IF NOT EXISTS (SELECT FROM remote_workers r
                    WHERE r.lab = p_lab AND r.name = p_name AND r.instance = p_instance AND r.stopped_at IS NULL) THEN
      RAISE EXCEPTION 'no running worker % with this instance in the lab % (join the lab first)', p_name, p_lab
        USING ERRCODE = 'FL008';
    END IF;
    waited := current_setting('lock_timeout');
    PERFORM set_config('lock_timeout', '400ms', true);
    PERFORM pg_advisory_xact_lock_shared(fl_critical_window_key(p_lab, p_name, p_instance));
    PERFORM set_config('lock_timeout', waited, true);
  END IF;
  joined := worker_generation(p_lab, p_name, p_instance);
  PERFORM fl_take_event_budget(p_lab, p_name, 'told');
  SELECT * INTO b FROM labs l WHERE l.id = p_lab;
  INSERT INTO events (lab, actor, kind, resource, token, detail, generation)
  VALUES (p_lab, p_name, p_kind, b.resource, p_token, coalesce(p_detail, '{}'::jsonb), joined);
END $$;
