-- execute: owner
CREATE OR REPLACE FUNCTION protected_rows_refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'protected rows are never deleted: a deleted and recreated row would accept old tokens again'
    USING ERRCODE = 'FL006';
END $$;
