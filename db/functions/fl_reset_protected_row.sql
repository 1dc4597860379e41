-- execute: app
-- A lab's row back to `p_value` when the lab is reset, under a freshly minted token: last_token only
-- ever goes up, so no token handed out before the reset can write the row again.
CREATE OR REPLACE FUNCTION fl_reset_protected_row(p_id integer, p_value text)
RETURNS TABLE (id integer, value text, last_token bigint, updated_at timestamptz)
LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  INSERT INTO protected_rows AS p (id, value) VALUES (p_id, p_value)
  ON CONFLICT (id) DO UPDATE
    SET value = EXCLUDED.value, last_token = nextval('write_epoch'), updated_at = clock_timestamp()
  RETURNING p.id, p.value, p.last_token, p.updated_at
$$;
