-- execute: app
-- The broken labs' writes, on each lab's own row of unguarded_rows: the mode the writer names must be one
-- of its kind's (lab_kind_writes), whose policy fl_may_write applies in the UPDATE. Recorded as an event.
CREATE OR REPLACE FUNCTION fl_broken_write(p_lab text, p_row_id integer, p_mode text, p_value text, p_token bigint,
                                           p_actor text, p_generation bigint)
RETURNS TABLE (outcome text, stored_token bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  lab_kind lab_kinds%ROWTYPE;
  w lab_kind_writes%ROWTYPE;
  written boolean := false;
  stored bigint;
BEGIN
  IF p_generation IS NOT NULL THEN PERFORM lab_generation_current(p_lab, p_generation); END IF;
  -- Each lab makes only its own kind's mistakes (lab_kind_writes), on its own row of unguarded_rows.
  SELECT k.* INTO lab_kind FROM labs b JOIN lab_kinds k ON k.id = b.kind
   WHERE b.id = p_lab AND b.row_id = p_row_id AND k.row_table = 'unguarded_rows';
  SELECT x.* INTO w FROM lab_kind_writes x WHERE x.kind = lab_kind.id AND x.mode = p_mode;
  -- ('packet' is the delayed-packet labs' write: fl_delayed_packet_write.)
  IF w.kind IS NULL OR p_mode = 'packet' THEN
    RAISE EXCEPTION 'the lab % (row %) has no % write', p_lab, p_row_id, p_mode USING ERRCODE = 'FL011';
  END IF;
  -- A kind with own_grant_only (the same-token lab, the fenced drifting clock) takes only a token granted
  -- to this writer in this lab, and in this run when the writer is a worker (p_generation): a made-up
  -- token far above the others would wedge the lab's row until a reset. Its grants are lease_acquired events, fresh ones and takeovers alike (a
  -- takeover keeps the token, so it has no lease_grants row of its own): A's and B's grants of one
  -- token both count, and the stale holder's late write with it still passes, as the lab shows.
  IF lab_kind.own_grant_only
     AND NOT EXISTS (SELECT 1 FROM events e
                      WHERE e.lab = p_lab AND e.kind = 'lease_acquired' AND e.token = p_token AND e.actor = p_actor
                        AND (p_generation IS NULL OR e.generation = p_generation)) THEN
    RAISE EXCEPTION 'token % was not granted to % in the lab %', p_token, p_actor, p_lab USING ERRCODE = 'FL009';
  END IF;
  IF w.policy <> 'refused' THEN
    UPDATE unguarded_rows u
       SET value = p_value, last_token = p_token, last_token_text = p_token::text, updated_at = clock_timestamp()
     WHERE u.id = p_row_id AND u.lab = p_lab
       AND fl_may_write(w.policy, u.last_token, p_token);
    written := FOUND;
  END IF;
  IF NOT written THEN
    SELECT coalesce((SELECT u.last_token FROM unguarded_rows u WHERE u.id = p_row_id AND u.lab = p_lab), 0)
      INTO stored;
  END IF;
  INSERT INTO events (lab, actor, kind, row_id, token, stored_token, outcome, detail, generation)
  VALUES (p_lab, p_actor, CASE WHEN written THEN 'write_accepted' ELSE 'write_rejected' END, p_row_id, p_token,
          stored, CASE WHEN written THEN 'accepted' ELSE 'stale' END,
          jsonb_build_object('value', p_value, 'table', 'unguarded_rows', 'path', w.path), p_generation);
  RETURN QUERY SELECT CASE WHEN written THEN 'accepted' ELSE 'stale' END, stored;
END $$;
