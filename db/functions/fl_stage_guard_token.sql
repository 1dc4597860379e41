-- execute: app
-- The your-guard attack's next grant at p_next (a grant's token, not a write's: no fencing predicate here) (lib/chaos/guard-attack.ts: it tries the tokens the
-- trainee's statement names). Tokens still only go up: staged only above every token granted in the
-- lab's current history (a reset clears it and restages at 8); otherwise nothing changes. Returns
-- the token the next grant will mint.
CREATE OR REPLACE FUNCTION fl_stage_guard_token(p_lab text, p_next bigint) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  b labs%ROWTYPE := fl_your_guard_lab(p_lab);
  staged bigint;
BEGIN
  IF p_next IS NULL OR p_next < 1 THEN
    RAISE EXCEPTION 'a token is a positive integer' USING ERRCODE = '22023';
  END IF;
  -- The grant bumps the same row: holding its lock, no grant falls between the check and the stage.
  UPDATE labs l SET text_epoch = p_next - 1
   WHERE l.id = b.id
     AND p_next > coalesce((SELECT max(e.token) FROM events e WHERE e.lab = b.id AND e.kind = 'lease_acquired'), 0)
  RETURNING l.text_epoch + 1 INTO staged;
  IF staged IS NULL THEN
    SELECT l.text_epoch + 1 INTO staged FROM labs l WHERE l.id = b.id;
  END IF;
  RETURN staged;
END $$;
