-- execute: owner
-- The worker LISTENs and takes its commands at once; it also polls every second, so a lost
-- notification (its connection was down) only delays a command.
CREATE OR REPLACE FUNCTION worker_commands_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('fencing_worker_commands', json_build_object('lab', NEW.lab, 'worker', NEW.worker)::text);
  RETURN NULL;
END $$;
