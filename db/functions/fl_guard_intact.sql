-- execute: owner
-- Is the lab's guard_write still as fl_install_guard left it? Its role owns it (a SECURITY DEFINER function
-- runs with its owner's privileges, and only the owner, or a superuser, may ALTER a function: so the role
-- whose privileges the statement runs with is the one that could change it, and no other split is
-- possible), so anything that ran as that role could have made it SECURITY INVOKER (the next call would
-- run as the caller: the owner), reset its search_path or timeout, granted it to PUBLIC, or set the
-- role's own defaults. Checked before every run of the guard and after it.
CREATE OR REPLACE FUNCTION fl_guard_intact(p_lab text) RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT coalesce((
    SELECT p.prosecdef AND NOT p.proisstrict AND p.provolatile = 'v' AND p.prokind = 'f'
           AND p.proowner = (SELECT oid FROM pg_roles WHERE rolname = public.fl_guard_role(p_lab))
           AND p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'plpgsql')
           AND p.prosrc = public.fl_guard_body()
           AND p.proconfig IS NOT DISTINCT FROM
               ARRAY[format('search_path=%I, pg_temp', public.fl_guard_schema(p_lab)), 'lock_timeout=2s']
           AND p.proacl::text[] IS NOT DISTINCT FROM
               ARRAY[format('%s=X/%s', public.fl_guard_role(p_lab), public.fl_guard_role(p_lab))]
           AND NOT EXISTS (SELECT 1 FROM pg_db_role_setting d WHERE d.setrole = p.proowner)
      FROM pg_proc p
     WHERE p.oid = to_regprocedure(format('%I.guard_write(text, bigint, integer)', public.fl_guard_schema(p_lab)))
  ), false)
$$;
