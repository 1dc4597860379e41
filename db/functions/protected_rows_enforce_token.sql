-- execute: owner
-- The resource enforces fencing itself, whoever writes: the fenced write's UPDATE already filters
-- stale tokens in its WHERE clause, so this trigger only ever fires for writes that bypass it
-- (psql, a forgotten code path). Policy: a write may keep the current token (<=) but never present
-- an older one, and never a token the sequence has not handed out yet (which would lock the row
-- against every future holder).
CREATE OR REPLACE FUNCTION protected_rows_enforce_token() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  minted bigint;
BEGIN
  IF NEW.last_token < OLD.last_token THEN
    RAISE EXCEPTION 'stale fencing token % (row % holds token %)', NEW.last_token, OLD.id, OLD.last_token
      USING ERRCODE = 'FL001';
  END IF;
  IF NEW.last_token > OLD.last_token THEN
    SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END INTO minted FROM write_epoch;
    IF NEW.last_token > minted THEN
      RAISE EXCEPTION 'fencing token % was never issued (highest issued is %)', NEW.last_token, minted
        USING ERRCODE = 'FL003';
    END IF;
  END IF;
  IF NEW.id <> OLD.id THEN
    RAISE EXCEPTION 'protected row ids cannot change' USING ERRCODE = 'FL004';
  END IF;
  RETURN NEW;
END $$;
