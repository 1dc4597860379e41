-- execute: app
-- A trainee's answer (choice from 0) to an open question of the lab's current run: one per trainee
-- (p_owner_hash), replaced by their next one, refused once the question is revealed or closed. The
-- question row is share-locked, and a reveal takes it exclusively: an answer commits wholly before
-- the reveal (and is counted) or is refused after it.
CREATE OR REPLACE FUNCTION fl_poll_answer(p_lab text, p_poll bigint, p_owner_hash text, p_choice integer)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  q polls%ROWTYPE;
  run bigint;
BEGIN
  SELECT * INTO q FROM polls WHERE id = p_poll AND lab = p_lab FOR SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'there is no such question in this lab' USING ERRCODE = 'FLP01';
  END IF;
  SELECT generation INTO run FROM labs WHERE id = p_lab;
  IF q.state = 'revealed' THEN
    RAISE EXCEPTION 'the trainer revealed the answers to this question: it takes no more answers'
      USING ERRCODE = 'FLP03';
  END IF;
  IF q.state = 'closed' OR q.generation <> run THEN
    RAISE EXCEPTION 'this question is closed: the trainer asked another one, or started over'
      USING ERRCODE = 'FLP02';
  END IF;
  IF p_choice IS NULL OR p_choice < 0 OR p_choice >= cardinality(q.choices) THEN
    RAISE EXCEPTION 'the question has % choices: pick one of them', cardinality(q.choices) USING ERRCODE = '22023';
  END IF;
  -- A room is tens of people; a script that sends a new browser each time fills no more than this.
  IF NOT EXISTS (SELECT 1 FROM poll_answers WHERE poll = p_poll AND owner_hash = p_owner_hash)
     AND (SELECT count(*) FROM poll_answers WHERE poll = p_poll) >= 500 THEN
    RAISE EXCEPTION 'this question has 500 answers already: it takes no more' USING ERRCODE = 'FLP04';
  END IF;
  INSERT INTO poll_answers (poll, owner_hash, choice) VALUES (p_poll, p_owner_hash, p_choice)
  ON CONFLICT (poll, owner_hash) DO UPDATE SET choice = EXCLUDED.choice, answered_at = clock_timestamp();
  PERFORM pg_notify('fencing_events', json_build_object('lab', p_lab)::text);
END $$;
