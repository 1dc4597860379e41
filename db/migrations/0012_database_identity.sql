-- Who this database is: a random id made once, when the schema is first installed. A live feed
-- sends it in its `hello`, so that a page that reconnects to a different database (a new data
-- directory, another DATABASE_URL) notices, and reloads the history from the start instead of
-- mixing two histories or dropping events whose ids the other database had already used.
CREATE TABLE IF NOT EXISTS database_identity (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  id text NOT NULL DEFAULT md5(random()::text || clock_timestamp()::text || pg_backend_pid()::text)
);
INSERT INTO database_identity DEFAULT VALUES ON CONFLICT DO NOTHING;
