-- execute: app
-- The lab's write: the trainee's statement, run as the lab's role, and its outcome as the lab's event,
-- in one transaction. Only a token granted to this writer in this lab (and run, for a worker).
CREATE OR REPLACE FUNCTION fl_your_guard_write(p_lab text, p_value text, p_token bigint, p_actor text, p_generation bigint)
RETURNS TABLE (outcome text, stored_token bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  b labs%ROWTYPE;
  s text;
  changed integer;
  row_value text;
  row_token bigint;
  guard_error text;
BEGIN
  IF p_generation IS NOT NULL THEN PERFORM lab_generation_current(p_lab, p_generation); END IF;
  b := fl_your_guard_lab(p_lab);
  s := fl_guard_schema(p_lab);
  IF to_regprocedure(format('%I.guard_write(text, bigint, integer)', s)) IS NULL THEN
    RAISE EXCEPTION 'the lab % has no guard yet: submit one first', p_lab USING ERRCODE = 'FL011';
  END IF;
  IF NOT fl_guard_intact(p_lab) THEN
    RAISE EXCEPTION 'the guard of the lab % is not as it was installed: submit it again', p_lab USING ERRCODE = 'FL011';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM events e
                  WHERE e.lab = p_lab AND e.kind = 'lease_acquired' AND e.token = p_token AND e.actor = p_actor
                    AND (p_generation IS NULL OR e.generation = p_generation)) THEN
    RAISE EXCEPTION 'token % was not granted to % in the lab %', p_token, p_actor, p_lab USING ERRCODE = 'FL009';
  END IF;
  -- An error the trainee's statement raises (division by zero, a timeout) is the guard's failure, not
  -- the write's: its effects are undone, and it is recorded as a write refused with PostgreSQL's words.
  BEGIN
    EXECUTE format('SELECT %I.guard_write($1, $2, $3)', s) INTO changed USING p_value, p_token, b.row_id;
    IF NOT fl_guard_intact(p_lab) THEN
      RAISE EXCEPTION 'the guard changed its own function (undone)' USING ERRCODE = 'FL011';
    END IF;
  EXCEPTION WHEN OTHERS OR query_canceled THEN
    guard_error := SQLERRM;
  END;
  EXECUTE format('SELECT g.value, g.last_token FROM %I.guarded_row g WHERE g.id = $1', s)
     INTO row_value, row_token USING b.row_id;
  IF guard_error IS NOT NULL THEN
    INSERT INTO events (lab, actor, kind, row_id, token, outcome, detail, generation)
    VALUES (p_lab, p_actor, 'write_rejected', b.row_id, p_token, 'error',
            jsonb_build_object('value', p_value, 'table', 'guarded_row', 'path', 'your guard',
                               'error', left(guard_error, 500)),
            p_generation);
    RETURN QUERY SELECT 'refused'::text, row_token;
    RETURN;
  END IF;
  -- The lab's row as the pages show it: what guarded_row holds now, copied only by a write that changed it
  -- (and so holds its lock until commit). A refused write may have read guarded_row before a concurrent
  -- accepted write committed: copying that older value after it would put the row back (seen under chaos).
  IF changed > 0 THEN
    UPDATE unguarded_rows u SET value = row_value, last_token = row_token, last_token_text = row_token::text,
                                updated_at = clock_timestamp()
     WHERE u.id = b.row_id AND u.lab = p_lab;
  END IF;
  INSERT INTO events (lab, actor, kind, row_id, token, stored_token, outcome, detail, generation)
  VALUES (p_lab, p_actor, CASE WHEN changed > 0 THEN 'write_accepted' ELSE 'write_rejected' END, b.row_id, p_token,
          CASE WHEN changed > 0 THEN NULL ELSE row_token END, CASE WHEN changed > 0 THEN 'accepted' ELSE 'stale' END,
          jsonb_build_object('value', p_value, 'table', 'guarded_row', 'path', 'your guard', 'changedRows', changed),
          p_generation);
  RETURN QUERY SELECT CASE WHEN changed > 0 THEN 'accepted' ELSE 'stale' END,
                      CASE WHEN changed > 0 THEN NULL ELSE row_token END;
END $$;
