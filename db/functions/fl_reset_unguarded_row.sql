-- execute: app
-- A reset puts the lab's row back (guarded_row too) and restages its counter; the guard stays.
CREATE OR REPLACE FUNCTION fl_reset_unguarded_row(p_lab text, p_value text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  b labs%ROWTYPE;
BEGIN
  SELECT * INTO b FROM labs l WHERE l.id = p_lab;
  IF NOT FOUND OR (SELECT k.row_table FROM lab_kinds k WHERE k.id = b.kind) <> 'unguarded_rows' THEN
    RAISE EXCEPTION '% is not a broken lab', p_lab USING ERRCODE = 'FL011';
  END IF;
  INSERT INTO unguarded_rows AS u (id, lab, value) VALUES (b.row_id, b.id, p_value)
  ON CONFLICT (id) DO UPDATE SET value = EXCLUDED.value, last_token = 0, last_token_text = '0',
                                 updated_at = clock_timestamp();
  IF (SELECT k.text_epoch FROM lab_kinds k WHERE k.id = b.kind) THEN UPDATE labs SET text_epoch = 8 WHERE id = p_lab; END IF;
  IF (SELECT k.trainee_guard FROM lab_kinds k WHERE k.id = b.kind) AND to_regclass(format('%I.guarded_row', fl_guard_schema(p_lab))) IS NOT NULL THEN
    EXECUTE format('UPDATE %I.guarded_row SET value = $1, last_token = 0 WHERE id = $2', fl_guard_schema(p_lab))
      USING p_value, b.row_id;
  END IF;
END $$;
