-- execute: app
-- The delayed-packet labs' write and its outcome's event, in one statement. The fenced lab's check is
-- the fenced write's own rule (fl_may_write's 'fenced', atomic with the write); the unfenced lab has none.
-- 'sentAt' is when the worker sent it, by its own word; 'receivedAt' when PostgreSQL ran it.
CREATE OR REPLACE FUNCTION fl_delayed_packet_write(p_lab text, p_row_id integer, p_value text, p_token bigint, p_actor text,
                                        p_generation bigint, p_attempt text)
RETURNS TABLE (outcome text, stored_token bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  w lab_kind_writes%ROWTYPE;
  written boolean;
  stored bigint;
BEGIN
  IF p_generation IS NOT NULL THEN PERFORM lab_generation_current(p_lab, p_generation); END IF;
  SELECT x.* INTO w FROM labs b JOIN lab_kind_writes x ON x.kind = b.kind AND x.mode = 'packet'
   WHERE b.id = p_lab AND b.row_id = p_row_id;
  IF w.kind IS NULL THEN
    RAISE EXCEPTION 'the lab % (row %) is not a delayed-packet lab', p_lab, p_row_id USING ERRCODE = 'FL011';
  END IF;
  IF p_attempt NOT IN ('first', 'retry') THEN
    RAISE EXCEPTION 'a write is a first attempt or a retry, not %', p_attempt USING ERRCODE = '22023';
  END IF;
  UPDATE unguarded_rows u
     SET value = p_value, last_token = p_token, last_token_text = p_token::text, updated_at = clock_timestamp()
   WHERE u.id = p_row_id AND u.lab = p_lab
     AND fl_may_write(w.policy, u.last_token, p_token);
  written := FOUND;
  IF NOT written THEN
    SELECT coalesce((SELECT u.last_token FROM unguarded_rows u WHERE u.id = p_row_id AND u.lab = p_lab), 0)
      INTO stored;
  END IF;
  INSERT INTO events (lab, actor, kind, row_id, token, stored_token, outcome, detail, generation)
  VALUES (p_lab, p_actor, CASE WHEN written THEN 'write_accepted' ELSE 'write_rejected' END, p_row_id, p_token,
          stored, CASE WHEN written THEN 'accepted' ELSE 'stale' END,
          jsonb_build_object('value', p_value, 'table', 'unguarded_rows', 'attempt', p_attempt,
                             'path', w.path,
                             'receivedAt', fl_iso(clock_timestamp())),
          p_generation);
  RETURN QUERY SELECT CASE WHEN written THEN 'accepted' ELSE 'stale' END, stored;
END $$;
