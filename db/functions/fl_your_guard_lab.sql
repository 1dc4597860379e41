-- execute: owner
-- The open your-guard lab p_lab, or FL011.
CREATE OR REPLACE FUNCTION fl_your_guard_lab(p_lab text) RETURNS labs
LANGUAGE plpgsql STABLE SET search_path = public, pg_temp AS $$
DECLARE
  b labs%ROWTYPE;
BEGIN
  SELECT * INTO b FROM labs l WHERE l.id = p_lab;
  IF NOT FOUND OR NOT (SELECT k.trainee_guard FROM lab_kinds k WHERE k.id = b.kind) OR b.visibility <> 'private' OR p_lab !~ '^p-[a-z0-9]{10}$' THEN
    RAISE EXCEPTION 'the lab % is not a your-guard lab', p_lab USING ERRCODE = 'FL011';
  END IF;
  RETURN b;
END $$;
