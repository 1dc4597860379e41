-- Closing the other ways back to an old token: a protected row is never deleted (a reset writes
-- it under a fresh token instead, see db/guard.ts), and a new row is born at the highest token
-- the sequence has handed out, so no token granted before the row existed can write it.

CREATE OR REPLACE FUNCTION protected_rows_enforce_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END INTO NEW.last_token FROM write_epoch;
  RETURN NEW;
END $$;

CREATE FUNCTION protected_rows_refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'protected rows are never deleted: a deleted and recreated row would accept old tokens again'
    USING ERRCODE = 'FL006';
END $$;
CREATE TRIGGER protected_rows_refuse_delete BEFORE DELETE ON protected_rows
  FOR EACH ROW EXECUTE FUNCTION protected_rows_refuse_delete();
CREATE TRIGGER protected_rows_refuse_truncate BEFORE TRUNCATE ON protected_rows
  FOR EACH STATEMENT EXECUTE FUNCTION protected_rows_refuse_delete();
