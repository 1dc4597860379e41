-- execute: app
-- The trainer asks the room a question about walkthrough step p_step of a shared lab's current run:
-- the question open before it is closed (one open question per lab), and the lab's feed is woken so
-- that every page shows the new one. The labs row is locked so that two asks, or an ask and a reset,
-- do not interleave. Returns the question's id.
CREATE OR REPLACE FUNCTION fl_poll_ask(p_lab text, p_step integer, p_question text, p_choices text[])
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  run bigint;
  asked integer;
  new_id bigint;
BEGIN
  SELECT generation INTO run FROM labs WHERE id = p_lab AND visibility = 'shared' FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'questions are asked in the shared labs only, and % is not one', p_lab USING ERRCODE = 'FLP01';
  END IF;
  SELECT count(*) INTO asked FROM polls WHERE lab = p_lab AND generation = run;
  -- A walkthrough has at most 7 steps: 20 leaves room for second thoughts and bounds each snapshot.
  IF asked >= 20 THEN
    RAISE EXCEPTION 'this run of the lab has 20 questions already: start the walkthrough over to ask more'
      USING ERRCODE = 'FLP04';
  END IF;
  UPDATE polls SET state = 'closed', ended_at = clock_timestamp() WHERE lab = p_lab AND state = 'open';
  INSERT INTO polls (lab, generation, step, question, choices)
  VALUES (p_lab, run, p_step, p_question, p_choices) RETURNING id INTO new_id;
  PERFORM pg_notify('fencing_events', json_build_object('lab', p_lab)::text);
  RETURN new_id;
END $$;
