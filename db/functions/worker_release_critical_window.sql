-- execute: worker
-- The runner lets its lane's write_sent in, after freezing the program (or when the pause is
-- cancelled): it lets go of the critical-window lock it holds, if it holds it. When the program's
-- write_sent was waiting there, returns the token it carries once its transaction has ended (at most
-- 400 ms: the watchdog ends a line's transaction open 500 ms; null if it never lands: a reset, a rate
-- refused):
-- the freeze is recorded after it, with the token the program believed it held. No identity check: a
-- session may always let go of what it holds, even after its lab was reset.
CREATE OR REPLACE FUNCTION worker_release_critical_window(p_lab text, p_name text, p_instance text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  k bigint := fl_critical_window_key(p_lab, p_name, p_instance);
  waiting boolean;
  last_id bigint;
  sent bigint;
  deadline timestamptz := clock_timestamp() + interval '400 milliseconds';
  gone boolean;
BEGIN
  waiting := EXISTS (SELECT FROM fl_critical_window_locks(k) l WHERE NOT l.granted);
  SELECT coalesce(max(e.id), 0) INTO last_id FROM events e WHERE e.lab = p_lab;
  WHILE EXISTS (SELECT FROM fl_critical_window_locks(k) l WHERE l.pid = pg_backend_pid() AND l.granted) LOOP
    PERFORM pg_advisory_unlock(k);
  END LOOP;
  IF NOT waiting THEN
    RETURN NULL;
  END IF;
  LOOP
    -- Let in, the write_sent holds the key (shared) until its transaction ends: looked at before the
    -- events, so that one that commits between the two looks is still found.
    gone := NOT EXISTS (SELECT FROM fl_critical_window_locks(k));
    SELECT e.token INTO sent FROM events e
     WHERE e.lab = p_lab AND e.actor = p_name AND e.kind = 'write_sent' AND e.id > last_id
     ORDER BY e.id LIMIT 1;
    IF FOUND OR gone OR clock_timestamp() > deadline THEN
      RETURN sent;
    END IF;
    PERFORM pg_sleep(0.005);
  END LOOP;
END $$;
