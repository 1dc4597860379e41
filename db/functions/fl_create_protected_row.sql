-- execute: app
-- A new protected row with the next free id, born at the highest token handed out (0005).
CREATE OR REPLACE FUNCTION fl_create_protected_row(p_value text)
RETURNS TABLE (id integer, value text, last_token bigint, updated_at timestamptz)
LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  INSERT INTO protected_rows AS p (value) VALUES (p_value) RETURNING p.id, p.value, p.last_token, p.updated_at
$$;
