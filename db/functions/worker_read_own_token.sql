-- execute: worker
-- The read-check-write lab's read: its own row's token, and no other row's.
CREATE OR REPLACE FUNCTION worker_read_own_token(p_lab text, p_name text, p_instance text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  b labs%ROWTYPE;
BEGIN
  PERFORM worker_generation(p_lab, p_name, p_instance);
  SELECT * INTO b FROM labs l WHERE l.id = p_lab;
  -- Only a lab whose check is made in the app, after reading the token (its 'checked-stale' write).
  IF NOT EXISTS (SELECT 1 FROM lab_kind_writes x WHERE x.kind = b.kind AND x.mode = 'checked-stale') THEN
    RAISE EXCEPTION 'only the read-check-write lab reads before it writes' USING ERRCODE = 'FL011';
  END IF;
  RETURN fl_read_unguarded_token(p_lab, b.row_id);
END $$;
