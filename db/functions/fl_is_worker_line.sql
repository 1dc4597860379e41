-- execute: owner
-- Whether a role is a person's worker line (0046): one issued by fl_issue_worker_line. The local
-- worker role (the server's own workers) and the worker group itself are not.
CREATE OR REPLACE FUNCTION fl_is_worker_line(p_role name) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  SELECT EXISTS (SELECT FROM worker_lines w WHERE w.role_name = p_role::text)
$$;
