-- execute: owner
-- The class wall's live feed: a new attempt's id (the reader fetches the row, and only what it may see).
CREATE OR REPLACE FUNCTION guard_attempts_notify() RETURNS trigger LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM pg_notify('fencing_guard_attempts', json_build_object('id', NEW.id)::text);
  RETURN NEW;
END $$;
