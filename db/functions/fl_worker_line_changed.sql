-- execute: owner
-- What a person changed on their own worker line, in words, or NULL when its settings are as issued:
-- any role may ALTER ROLE CURRENT_USER SET (or RESET, or IN DATABASE … SET) for itself. Compared with
-- fl_worker_line_settings over every database, as pg_db_role_setting holds them.
CREATE OR REPLACE FUNCTION fl_worker_line_changed(p_role name) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  WITH mine AS (
    SELECT s.setdatabase, unnest(s.setconfig) AS setting
      FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole
     WHERE r.rolname = p_role
  ), extra AS (
    SELECT setting FROM mine WHERE setdatabase <> 0 OR NOT (setting = ANY (fl_worker_line_settings()))
  ), missing AS (
    SELECT setting FROM unnest(fl_worker_line_settings()) AS issued(setting)
     WHERE NOT EXISTS (SELECT FROM mine m WHERE m.setdatabase = 0 AND m.setting = issued.setting)
  )
  SELECT CASE WHEN NOT EXISTS (SELECT FROM extra) AND NOT EXISTS (SELECT FROM missing) THEN NULL
              ELSE concat_ws('; ',
                     (SELECT 'set: ' || string_agg(setting, ', ' ORDER BY setting) FROM extra),
                     (SELECT 'reset: ' || string_agg(setting, ', ' ORDER BY setting) FROM missing))
         END
$$;
