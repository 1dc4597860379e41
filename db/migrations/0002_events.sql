-- Append-only history of everything that happens in a lab.
CREATE SEQUENCE events_id_seq AS bigint;

CREATE TABLE events (
  id           bigint PRIMARY KEY,
  lab          text NOT NULL DEFAULT 'main',
  at           timestamptz NOT NULL,
  actor        text NOT NULL CHECK (length(actor) BETWEEN 1 AND 100),
  kind         text NOT NULL CHECK (kind ~ '^[a-z_]+$'),
  resource     text,
  row_id       integer,
  token        bigint,
  stored_token bigint,
  outcome      text,
  detail       jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX events_lab_id ON events (lab, id);

-- Ids and timestamps are assigned under a transaction-scoped lock held until commit, so that
-- id order is commit order: a reader that follows "id > last seen" can never skip an event
-- that commits late with a smaller id.
CREATE FUNCTION events_assign_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('fencing_lab.events'));
  NEW.id := nextval('events_id_seq');
  NEW.at := clock_timestamp();
  RETURN NEW;
END $$;
CREATE TRIGGER events_assign_id BEFORE INSERT ON events
  FOR EACH ROW EXECUTE FUNCTION events_assign_id();

CREATE FUNCTION events_refuse_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'events are append-only' USING ERRCODE = 'FL002';
END $$;
CREATE TRIGGER events_refuse_update BEFORE UPDATE ON events
  FOR EACH ROW EXECUTE FUNCTION events_refuse_update();

-- Listeners get the id only (NOTIFY payloads are capped at 8000 bytes) and read the row.
CREATE FUNCTION events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('fencing_events', json_build_object('id', NEW.id, 'lab', NEW.lab)::text);
  RETURN NULL;
END $$;
CREATE TRIGGER events_notify AFTER INSERT ON events
  FOR EACH ROW EXECUTE FUNCTION events_notify();
