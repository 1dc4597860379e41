-- execute: owner
-- The failover lab has no workers: its holders are the app server's own sessions on its pair. The
-- app refuses a worker of it (lib/model/lab/lab-inputs.ts); a worker that calls worker_join for it
-- directly is refused here, before any status row, lease or event of it exists.
CREATE OR REPLACE FUNCTION fl_no_workers_in_failover() RETURNS trigger
LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM labs l JOIN lab_kinds k ON k.id = l.kind WHERE l.id = NEW.lab AND NOT k.has_workers) THEN
    RAISE EXCEPTION 'the failover lab has no workers' USING ERRCODE = '42501';
  END IF;
  RETURN NEW;
END $$;
