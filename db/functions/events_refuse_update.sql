-- execute: owner
CREATE OR REPLACE FUNCTION events_refuse_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'events are append-only' USING ERRCODE = 'FL002';
END $$;
