-- execute: owner
CREATE OR REPLACE FUNCTION protected_rows_enforce_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END INTO NEW.last_token FROM write_epoch;
  RETURN NEW;
END $$;
