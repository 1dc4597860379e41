-- Every guard a trainee submitted in a your-guard lab (issue 15 parts 1-2): who (the hash of the
-- owner's secret, as labs.owner_hash), the name they chose, the canonical statement (or the text refused,
-- cut to 2000 characters), and the verdict: passed, the violation's rule and words, or the reason it was
-- refused before it ran. The counterexample is kept as a history file (lib/model/history-file.ts) of
-- the events that show the violation: the lab's own history is cleared by the next attempt's reset.
CREATE TABLE guard_attempts (
  id          bigserial PRIMARY KEY,
  lab         text NOT NULL REFERENCES labs (id),
  owner_hash  text NOT NULL,
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 40),
  statement   text NOT NULL CHECK (length(statement) <= 2000),
  outcome     text NOT NULL CHECK (outcome IN ('passed', 'violation', 'refused')),
  rule        text,
  verdict     text NOT NULL CHECK (length(verdict) <= 2000),
  history     jsonb CHECK (history IS NULL OR octet_length(history::text) <= 200000),
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX guard_attempts_owner ON guard_attempts (owner_hash, id);
CREATE INDEX guard_attempts_lab ON guard_attempts (lab);

-- The class wall's live feed: a new attempt's id (the reader fetches the row, and only what it may see).
CREATE FUNCTION guard_attempts_notify() RETURNS trigger LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM pg_notify('fencing_guard_attempts', json_build_object('id', NEW.id)::text);
  RETURN NEW;
END $$;
CREATE TRIGGER guard_attempts_notify AFTER INSERT ON guard_attempts FOR EACH ROW EXECUTE FUNCTION guard_attempts_notify();

DO $$
DECLARE
  app text := fencing_lab_role('app');
BEGIN
  EXECUTE format('GRANT SELECT, INSERT, DELETE ON guard_attempts TO %I', app);
  EXECUTE format('GRANT USAGE ON SEQUENCE guard_attempts_id_seq TO %I', app);
END $$;
