-- execute: owner
-- Listeners get the id only (NOTIFY payloads are capped at 8000 bytes) and read the row.
CREATE OR REPLACE FUNCTION events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('fencing_events', json_build_object('id', NEW.id, 'lab', NEW.lab)::text);
  RETURN NULL;
END $$;
