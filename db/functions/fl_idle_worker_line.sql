-- execute: owner
-- The worker line to take back when the room, or one client address (p_from, unless p_anywhere), has
-- none left: the oldest issued 10 minutes ago or more that runs no worker (none it joined has beaten
-- for 2 minutes), never p_except (the line being asked for again). The asking browser's own (p_holder)
-- go first: an address may be a few trainees behind one router, and one's idle line is taken before
-- another's. Then one with no session (a psql left open, an idle connection, keeps no line: it is ended
-- with the line). Null when there is none.
CREATE OR REPLACE FUNCTION fl_idle_worker_line(p_from inet, p_anywhere boolean, p_except text, p_holder text)
RETURNS text
LANGUAGE sql STABLE SET search_path = public, pg_temp AS $$
  SELECT w.role_name FROM worker_lines w
   WHERE (p_anywhere OR w.issued_from IS NOT DISTINCT FROM p_from)
     AND w.role_name IS DISTINCT FROM p_except
     AND w.issued_at < clock_timestamp() - interval '10 minutes'
     AND NOT EXISTS (SELECT FROM remote_workers r
                      WHERE r.joined_as = w.role_name AND r.stopped_at IS NULL
                        AND r.heartbeat_at > clock_timestamp() - interval '2 minutes')
   ORDER BY w.holder IS DISTINCT FROM p_holder,
            EXISTS (SELECT FROM pg_stat_activity a WHERE a.usename = w.role_name), w.issued_at
   LIMIT 1
$$;
