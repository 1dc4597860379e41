-- Predict, then watch (issue 22): the trainer asks the room a question with 2 to 4 choices before a
-- walkthrough step runs; each trainee answers once (changeable until the answers are revealed). Kept
-- with the lab's run (labs.generation, 0008), as the history is: the export of a run carries its
-- questions. A trainee is the hash of the browser's owner secret (as labs.owner_hash), never a name.
-- The app role only reads these: asking, answering and revealing go through db/functions/fl_poll_*.sql,
-- which hold the rules (one open question per lab, one answer per person, none after the reveal).
CREATE TABLE polls (
  id          bigserial PRIMARY KEY,
  lab         text NOT NULL REFERENCES labs (id),
  generation  bigint NOT NULL,
  -- The walkthrough step (from 0) the question is about: showing it reveals the answers.
  step        integer NOT NULL CHECK (step BETWEEN 0 AND 99),
  question    text NOT NULL CHECK (length(question) BETWEEN 1 AND 200),
  choices     text[] NOT NULL CHECK (cardinality(choices) BETWEEN 2 AND 4),
  state       text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'revealed', 'closed')),
  asked_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
  ended_at    timestamptz
);
CREATE UNIQUE INDEX polls_one_open_per_lab ON polls (lab) WHERE state = 'open';
CREATE INDEX polls_lab_run ON polls (lab, generation, id);

CREATE TABLE poll_answers (
  poll        bigint NOT NULL REFERENCES polls (id),
  owner_hash  text NOT NULL CHECK (length(owner_hash) BETWEEN 1 AND 128),
  choice      integer NOT NULL CHECK (choice BETWEEN 0 AND 3),
  answered_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (poll, owner_hash)
);

DO $$
BEGIN
  EXECUTE format('GRANT SELECT ON polls, poll_answers TO %I', fencing_lab_role('app'));
END $$;
