-- execute: app
-- Drops the lab's guard, its schema and its role (a closed lab keeps its history, not its guard).
CREATE OR REPLACE FUNCTION fl_drop_guard(p_lab text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  b labs%ROWTYPE := fl_your_guard_lab(p_lab);
  s text := fl_guard_schema(b.id);
  r text := fl_guard_role(b.id);
BEGIN
  EXECUTE format('DROP SCHEMA IF EXISTS %I CASCADE', s);
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
    EXECUTE format('DROP ROLE %I', r);
  END IF;
END $$;
