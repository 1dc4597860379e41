-- execute: worker
CREATE OR REPLACE FUNCTION worker_fenced_write(p_lab text, p_name text, p_instance text, p_value text, p_token bigint)
RETURNS TABLE (outcome text, row_id integer, stored_token bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  joined bigint;
  b labs%ROWTYPE;
BEGIN
  -- As the Start form's write value (fl_bound, lib/model/core/input-bounds.ts): each write's event holds it.
  IF length(p_value) > fl_bound('write_value_max_chars') THEN
    RAISE EXCEPTION 'a write value is at most % characters', fl_bound('write_value_max_chars') USING ERRCODE = '22023';
  END IF;
  joined := worker_generation(p_lab, p_name, p_instance);
  -- Each call records an event of the lab's own: a rate per worker (0047), FL012 over it.
  PERFORM fl_take_event_budget(p_lab, p_name, 'calls');
  SELECT * INTO b FROM labs l WHERE l.id = p_lab;
  IF (SELECT k.row_table FROM lab_kinds k WHERE k.id = b.kind) <> 'protected_rows' THEN
    RAISE EXCEPTION 'the lab % is not fenced: it has its own write', p_lab USING ERRCODE = 'FL011';
  END IF;
  -- A worker writes with a token granted to it: another worker's token, even of this lab, is refused.
  IF NOT EXISTS (SELECT 1 FROM lease_grants g WHERE g.token = p_token AND g.lab = p_lab AND g.holder = p_name) THEN
    RAISE EXCEPTION 'token % was not granted to % in the lab %', p_token, p_name, p_lab USING ERRCODE = 'FL009';
  END IF;
  RETURN QUERY SELECT w.outcome, b.row_id, w.stored_token
                 FROM fl_fenced_write(b.row_id, p_value, p_token, p_name, p_lab, joined) w;
END $$;
