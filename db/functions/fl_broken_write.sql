-- execute: app
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
    WHEN lab_kind = 'drifting-clock-fenced' AND p_mode = 'fenced' THEN 'fenced'
  END;
  IF path IS NULL THEN
    RAISE EXCEPTION 'the lab % (row %) has no % write', p_lab, p_row_id, p_mode USING ERRCODE = 'FL011';
  END IF;
  -- The same-token lab's write (and the fenced drifting clock's, 0031) takes only a token granted to
  -- this writer in this lab, and in this run
  -- when the writer is a worker (p_generation): a made-up token far above the others would wedge the
  -- lab's row until a reset. Its grants are lease_acquired events, fresh ones and takeovers alike (a
  -- takeover keeps the token, so it has no lease_grants row of its own): A's and B's grants of one
  -- token both count, and the stale holder's late write with it still passes, as the lab shows.
  IF lab_kind IN ('same-token-takeover', 'drifting-clock-fenced')
     AND NOT EXISTS (SELECT 1 FROM events e
                      WHERE e.lab = p_lab AND e.kind = 'lease_acquired' AND e.token = p_token AND e.actor = p_actor
                        AND (p_generation IS NULL OR e.generation = p_generation)) THEN
    RAISE EXCEPTION 'token % was not granted to % in the lab %', p_token, p_actor, p_lab USING ERRCODE = 'FL009';
  END IF;
  IF p_mode <> 'checked-stale' THEN
    UPDATE unguarded_rows u
       SET value = p_value, last_token = p_token, last_token_text = p_token::text, updated_at = clock_timestamp()
     WHERE u.id = p_row_id AND u.lab = p_lab
       AND fl_may_write(CASE p_mode WHEN 'plain' THEN 'none' ELSE p_mode END, u.last_token, p_token);
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
