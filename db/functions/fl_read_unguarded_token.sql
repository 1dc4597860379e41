-- execute: app
-- The read of the read-check-write lab's mistake: its own row's token, read apart from the write.
CREATE OR REPLACE FUNCTION fl_read_unguarded_token(p_lab text, p_row_id integer) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  SELECT coalesce((SELECT u.last_token FROM unguarded_rows u WHERE u.id = p_row_id AND u.lab = p_lab), 0)
$$;
