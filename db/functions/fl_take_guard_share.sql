-- execute: app
-- A trainee's share of guards a minute, for the whole room (0045): called by the statement that inserts
-- an attempt, before the insert. It counts the owner's attempts of the same kind (an attack or a
-- refusal) in the last p_window_ms on the database's clock, then the address's, and raises FLG02 past
-- either share: nothing is inserted. Its detail says whose share was used ('owner' or 'address'), the
-- bound, and the seconds until the oldest attempt that counts leaves the window.
--
-- Two servers submitting for one owner (or one address) at once are counted one after the other: a
-- lock per owner, then one per address (always in that order), held until the caller's transaction
-- ends, after its insert. A VOLATILE function's queries each read afresh in READ COMMITTED, so the
-- count after the lock sees an attempt committed while it waited, though the caller's statement began
-- before that.
CREATE OR REPLACE FUNCTION fl_take_guard_share(
  p_owner_hash text, p_address text, p_counted_as text, p_per_owner integer, p_per_address integer,
  p_window_ms integer)
RETURNS boolean
LANGUAGE plpgsql VOLATILE SET search_path = public, pg_temp AS $$
DECLARE
  since timestamptz;
  frees timestamptz;
BEGIN
  IF p_counted_as NOT IN ('attack', 'refusal') OR p_per_owner < 1 OR p_per_address < 1 OR p_window_ms < 1 THEN
    RAISE EXCEPTION 'a share counts attacks or refusals, from 1 a window' USING ERRCODE = '22023';
  END IF;
  PERFORM pg_advisory_xact_lock(hashtext('fencing_lab.guard_share.owner'), hashtext(p_owner_hash));
  PERFORM pg_advisory_xact_lock(hashtext('fencing_lab.guard_share.address'), hashtext(p_address));
  since := clock_timestamp() - make_interval(secs => p_window_ms / 1000.0);
  -- The newest p_per_owner attempts in the window: when the last of them is there, the share is used,
  -- and it frees when that one leaves the window.
  SELECT created_at INTO frees FROM guard_attempts
   WHERE owner_hash = p_owner_hash AND counted_as = p_counted_as AND created_at > since
   ORDER BY created_at DESC OFFSET p_per_owner - 1 LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'this owner has sent % % a window of % ms', p_per_owner, p_counted_as, p_window_ms
      USING ERRCODE = 'FLG02', DETAIL = json_build_object('by', 'owner', 'limit', p_per_owner,
        'wait_s', greatest(1, ceil(extract(epoch FROM frees - since))))::text;
  END IF;
  SELECT created_at INTO frees FROM guard_attempts
   WHERE address = p_address AND counted_as = p_counted_as AND created_at > since
   ORDER BY created_at DESC OFFSET p_per_address - 1 LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'this address has sent % % a window of % ms', p_per_address, p_counted_as, p_window_ms
      USING ERRCODE = 'FLG02', DETAIL = json_build_object('by', 'address', 'limit', p_per_address,
        'wait_s', greatest(1, ceil(extract(epoch FROM frees - since))))::text;
  END IF;
  RETURN true;
END $$;
