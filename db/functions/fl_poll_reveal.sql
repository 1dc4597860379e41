-- execute: app
-- Reveals the answers to the lab's open question of its current run: p_poll names it (the trainer's
-- Reveal), or, when null, the step p_step being shown reveals the open question about it or an
-- earlier step (the step ran: the room now watches what it predicted). Returns how many it revealed.
CREATE OR REPLACE FUNCTION fl_poll_reveal(p_lab text, p_poll bigint, p_step integer)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  revealed integer;
BEGIN
  WITH shown AS (
    UPDATE polls p SET state = 'revealed', ended_at = clock_timestamp()
      FROM labs l
     WHERE l.id = p_lab AND p.lab = l.id AND p.generation = l.generation AND p.state = 'open'
       AND (p.id = p_poll OR (p_poll IS NULL AND p.step <= p_step))
    RETURNING p.id
  )
  SELECT count(*) INTO revealed FROM shown;
  IF revealed > 0 THEN
    PERFORM pg_notify('fencing_events', json_build_object('lab', p_lab)::text);
  END IF;
  RETURN revealed;
END $$;
