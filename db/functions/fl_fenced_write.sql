-- execute: app
-- THE fenced write: the seed's statement (its predicate is fl_may_write's 'fenced'), the check and the write in one atomic statement (under
-- READ COMMITTED a write that waits on a newer writer's row lock re-checks its WHERE after that
-- commit). The row of a lab is written only with a token granted for that lab's resource. The
-- outcome is recorded in the same transaction. 'unknown_row' when there is no such row.
CREATE OR REPLACE FUNCTION fl_fenced_write(p_row_id integer, p_value text, p_token bigint, p_actor text, p_lab text,
                                p_generation bigint)
RETURNS TABLE (outcome text, stored_token bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  owner_resource text;
  written bigint;
  stored bigint;
BEGIN
  IF p_generation IS NOT NULL THEN PERFORM lab_generation_current(p_lab, p_generation); END IF;
  SELECT b.resource INTO owner_resource FROM labs b JOIN lab_kinds k ON k.id = b.kind
   WHERE k.row_table = 'protected_rows' AND b.row_id = p_row_id;
  UPDATE protected_rows p SET value = p_value, last_token = p_token, updated_at = clock_timestamp()
   WHERE p.id = p_row_id AND fl_may_write('fenced', p.last_token, p_token)
     AND (owner_resource IS NULL
          OR EXISTS (SELECT 1 FROM lease_grants g WHERE g.token = p_token AND g.resource = owner_resource))
  RETURNING p.last_token INTO written;
  IF written IS NULL THEN
    -- Only to explain the refusal: the decision was made atomically above.
    SELECT p.last_token INTO stored FROM protected_rows p WHERE p.id = p_row_id;
    IF NOT FOUND THEN
      RETURN QUERY SELECT 'unknown_row', NULL::bigint;
      RETURN;
    END IF;
    IF fl_may_write('fenced', stored, p_token) THEN
      RAISE EXCEPTION 'token % was not granted for % (the lease of the lab that owns row %)',
        p_token, owner_resource, p_row_id USING ERRCODE = 'FL009';
    END IF;
  END IF;
  INSERT INTO events (lab, actor, kind, row_id, token, stored_token, outcome, detail, generation)
  VALUES (p_lab, p_actor, CASE WHEN written IS NULL THEN 'write_rejected' ELSE 'write_accepted' END, p_row_id,
          p_token, stored, CASE WHEN written IS NULL THEN 'stale' ELSE 'accepted' END,
          jsonb_build_object('value', p_value), p_generation);
  RETURN QUERY SELECT CASE WHEN written IS NULL THEN 'stale' ELSE 'accepted' END, stored;
END $$;
