-- A delayed packet (issue 13): nothing freezes; the network holds the lease holder's write. Two labs
-- side by side, their workers connected to PostgreSQL through a proxy their app server owns
-- (lib/os/packet-proxy.ts), which holds a connection's bytes at its next write statement:
--  * delayed-packet: the write is fenced (`last_token <= token`, in the same statement as the write),
--    so the held write, arriving after the new holder wrote with a newer token, is rejected as stale;
--  * delayed-packet-unfenced: the same write with no token check, so it lands: a lost update.
-- Their write is a function of their own (fl_delayed_packet_write), reached by the worker only through
-- worker_delayed_packet_write, which refuses a worker of any other lab. No other lab's function changes.

-- The kinds: whatever earlier migrations allowed, and these two.
DO $$
DECLARE
  def text;
BEGIN
  SELECT pg_get_constraintdef(c.oid) INTO def FROM pg_constraint c
   WHERE c.conname = 'labs_kind_check' AND c.conrelid = 'labs'::regclass;
  ALTER TABLE labs DROP CONSTRAINT labs_kind_check;
  EXECUTE format('ALTER TABLE labs ADD CONSTRAINT labs_kind_check CHECK (%s OR kind IN (%L, %L))',
                 regexp_replace(def, '^CHECK ', ''), 'delayed-packet', 'delayed-packet-unfenced');
END $$;

-- Rows 10 and 11 of unguarded_rows (8 and 9 are left to the failover labs).
INSERT INTO labs (id, kind, row_id, resource, visibility) VALUES
  ('delayed-packet', 'delayed-packet', 10, 'lab/delayed-packet', 'shared'),
  ('delayed-packet-unfenced', 'delayed-packet-unfenced', 11, 'lab/delayed-packet-unfenced', 'shared')
ON CONFLICT DO NOTHING;
INSERT INTO unguarded_rows (id, lab, value) VALUES (10, 'delayed-packet', 'initial'), (11, 'delayed-packet-unfenced', 'initial')
ON CONFLICT DO NOTHING;

-- The delayed-packet labs' write and its outcome's event, in one statement. The fenced lab's check is
-- the guard's own rule (`last_token <= token`, atomic with the write); the unfenced lab has none.
-- 'sentAt' is when the worker sent it, by its own word; 'receivedAt' when PostgreSQL ran it.
CREATE FUNCTION fl_delayed_packet_write(p_lab text, p_row_id integer, p_value text, p_token bigint, p_actor text,
                                        p_generation bigint, p_attempt text)
RETURNS TABLE (outcome text, stored_token bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  lab_kind text;
  written boolean;
  stored bigint;
BEGIN
  IF p_generation IS NOT NULL THEN PERFORM lab_generation_current(p_lab, p_generation); END IF;
  SELECT b.kind INTO lab_kind FROM labs b WHERE b.id = p_lab AND b.row_id = p_row_id;
  IF lab_kind IS NULL OR lab_kind NOT IN ('delayed-packet', 'delayed-packet-unfenced') THEN
    RAISE EXCEPTION 'the lab % (row %) is not a delayed-packet lab', p_lab, p_row_id USING ERRCODE = 'FL011';
  END IF;
  IF p_attempt NOT IN ('first', 'retry') THEN
    RAISE EXCEPTION 'a write is a first attempt or a retry, not %', p_attempt USING ERRCODE = '22023';
  END IF;
  UPDATE unguarded_rows u
     SET value = p_value, last_token = p_token, last_token_text = p_token::text, updated_at = clock_timestamp()
   WHERE u.id = p_row_id AND u.lab = p_lab
     AND (lab_kind = 'delayed-packet-unfenced' OR u.last_token <= p_token);
  written := FOUND;
  IF NOT written THEN
    SELECT coalesce((SELECT u.last_token FROM unguarded_rows u WHERE u.id = p_row_id AND u.lab = p_lab), 0)
      INTO stored;
  END IF;
  INSERT INTO events (lab, actor, kind, row_id, token, stored_token, outcome, detail, generation)
  VALUES (p_lab, p_actor, CASE WHEN written THEN 'write_accepted' ELSE 'write_rejected' END, p_row_id, p_token,
          stored, CASE WHEN written THEN 'accepted' ELSE 'stale' END,
          jsonb_build_object('value', p_value, 'table', 'unguarded_rows', 'attempt', p_attempt,
                             'path', CASE WHEN lab_kind = 'delayed-packet' THEN 'fenced' ELSE 'no token check' END,
                             'receivedAt', fl_iso(clock_timestamp())),
          p_generation);
  RETURN QUERY SELECT CASE WHEN written THEN 'accepted' ELSE 'stale' END, stored;
END $$;

-- The worker's door: its own lab's row, name and run from the database, and only in those two labs.
CREATE FUNCTION worker_delayed_packet_write(p_lab text, p_name text, p_instance text, p_value text, p_token bigint,
                                            p_attempt text)
RETURNS TABLE (outcome text, row_id integer, stored_token bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  joined bigint;
  b labs%ROWTYPE;
BEGIN
  IF length(p_value) > 10000 THEN RAISE EXCEPTION 'value must be at most 10000 characters' USING ERRCODE = '22023'; END IF;
  joined := worker_generation(p_lab, p_name, p_instance);
  SELECT * INTO b FROM labs l WHERE l.id = p_lab;
  IF b.kind NOT IN ('delayed-packet', 'delayed-packet-unfenced') THEN
    RAISE EXCEPTION 'the lab % writes its own way, not through the delayed-packet write', p_lab USING ERRCODE = 'FL011';
  END IF;
  RETURN QUERY SELECT w.outcome, b.row_id, w.stored_token
                 FROM fl_delayed_packet_write(p_lab, b.row_id, p_value, p_token, p_name, joined, p_attempt) w;
END $$;

REVOKE ALL ON FUNCTION fl_delayed_packet_write(text, integer, text, bigint, text, bigint, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION worker_delayed_packet_write(text, text, text, text, bigint, text) FROM PUBLIC;
DO $$
BEGIN
  EXECUTE format('GRANT EXECUTE ON FUNCTION worker_delayed_packet_write(text, text, text, text, bigint, text) TO %I',
                 fencing_lab_role('worker'));
  EXECUTE format('GRANT EXECUTE ON FUNCTION fl_delayed_packet_write(text, integer, text, bigint, text, bigint, text) TO %I',
                 fencing_lab_role('app'));
END $$;
