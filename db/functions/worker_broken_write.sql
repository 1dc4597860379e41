-- execute: worker
-- A broken lab's worker's own (wrong) write, on its lab's own row only (fl_broken_write says which).
CREATE OR REPLACE FUNCTION worker_broken_write(p_lab text, p_name text, p_instance text, p_mode text, p_value text,
                                    p_token bigint)
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
  RETURN QUERY SELECT w.outcome, b.row_id, w.stored_token
                 FROM fl_broken_write(p_lab, b.row_id, p_mode, p_value, p_token, p_name, joined) w;
END $$;
