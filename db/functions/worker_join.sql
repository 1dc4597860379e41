-- execute: worker
CREATE OR REPLACE FUNCTION worker_join(p_lab text, p_name text, p_instance text, p_settings jsonb,
                            p_join_key text DEFAULT NULL)
RETURNS TABLE (refusal text, generation bigint, kind text, row_id integer, resource text, visibility text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  b labs%ROWTYPE;
  last_local text;
  joined bigint;
  drift numeric;
  -- A person's worker line (0046), not a worker an app server forked (the local role, 0041).
  from_room boolean := fl_is_worker_line(session_user);
  changed text;
BEGIN
  -- A line whose person changed its settings for itself (ALTER ROLE CURRENT_USER SET …) is refused in
  -- words before anything is stored; the watchdog puts them back within a second.
  IF from_room THEN
    changed := fl_worker_line_changed(session_user);
    IF changed IS NOT NULL THEN
      RAISE EXCEPTION 'this worker line''s settings were changed (%): they are being put back as issued, start the worker again in a few seconds', changed
        USING ERRCODE = 'FL031';
    END IF;
  END IF;
  IF p_instance IS NULL OR length(p_instance) < 16 OR length(p_instance) > 64 THEN
    RAISE EXCEPTION 'an instance is 16 to 64 characters' USING ERRCODE = '22023';
  END IF;
  -- A name as the app's own rules make it (lib/model/lab/lab-inputs.ts workerNameSchema), and settings
  -- that are small and name the same worker: the servers show them and may restart from them.
  IF fl_worker_name_refusal(p_name) IS NOT NULL THEN
    RAISE EXCEPTION '%', fl_worker_name_refusal(p_name) USING ERRCODE = '22023';
  END IF;
  IF p_settings IS NULL OR jsonb_typeof(p_settings) <> 'object' OR octet_length(p_settings::text) > 1000
     OR p_settings ->> 'name' IS DISTINCT FROM p_name THEN
    RAISE EXCEPTION 'a worker''s settings are a small object that names it' USING ERRCODE = '22023';
  END IF;
  -- The protocol version the client speaks (docs/protocol.md), in its settings: absent means the
  -- first; another is refused before anything is stored (its kind column says the version spoken
  -- here), and the version is not kept with the settings.
  IF p_settings ? 'protocol' THEN
    IF jsonb_typeof(p_settings -> 'protocol') IS DISTINCT FROM 'number'
       OR (p_settings ->> 'protocol')::numeric <> fl_bound('worker_protocol_version') THEN
      RETURN QUERY SELECT 'protocol', NULL::bigint, fl_bound('worker_protocol_version')::text, NULL::integer,
                          NULL::text, NULL::text;
      RETURN;
    END IF;
    p_settings := p_settings - 'protocol';
  END IF;
  -- The drifting-clock labs' setting, as the app's own rule makes it (lib/model/lab/lab-inputs.ts
  -- workerSettingsSchema clockSlowPercent): a whole percentage from 0 to 90.
  IF p_settings ? 'clockSlowPercent' THEN
    drift := CASE WHEN jsonb_typeof(p_settings -> 'clockSlowPercent') = 'number'
                  THEN (p_settings ->> 'clockSlowPercent')::numeric END;
    IF drift IS NULL OR drift NOT BETWEEN 0 AND 90 OR drift <> trunc(drift) THEN
      RAISE EXCEPTION 'a clock drift (clockSlowPercent) is a whole percentage from 0 to 90' USING ERRCODE = '22023';
    END IF;
  END IF;
  SELECT * INTO b FROM labs l WHERE l.id = p_lab AND l.history_deleted_at IS NULL;
  -- A private lab is joined only with its join key, which its server gives the workers it starts: its
  -- id alone (a notification may carry it) is no way in. Refused as if there were no such lab.
  IF FOUND AND b.visibility = 'private' AND (p_join_key IS NULL OR p_join_key IS DISTINCT FROM b.join_key) THEN
    RETURN QUERY SELECT 'no_lab', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'no_lab', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  IF b.closed_at IS NOT NULL THEN
    RETURN QUERY SELECT 'closed', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  -- Only the drifting-clock labs' workers have a drifting clock (shared or private, fenced or not):
  -- refused, with the lab's kind for the worker's message, before anything of it is stored.
  IF p_settings ? 'clockSlowPercent' AND NOT (SELECT k.drifting_clock FROM lab_kinds k WHERE k.id = b.kind) THEN
    RETURN QUERY SELECT 'no_clock_drift', NULL::bigint, b.kind, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  -- A shared lab is the trainer's: the room joins it only while the trainer opens it to remote workers,
  -- never under the walkthrough's names, at most 6 of them at once (the trainer keeps 2 of the
  -- lab's 8), at most 4 from one client address in every shared lab together (issue 23). A private
  -- lab is joined with its owner's key: its own cap of 16 holds it.
  IF from_room AND b.visibility = 'shared' AND NOT b.remote_workers_open THEN
    RETURN QUERY SELECT 'not_open', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  IF from_room AND b.visibility = 'shared' AND fl_name_skeleton(p_name) IN (fl_name_skeleton('A'), fl_name_skeleton('B')) THEN
    RETURN QUERY SELECT 'reserved_name', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  IF from_room AND b.visibility = 'shared' AND (SELECT count(*) FROM remote_workers r
                     WHERE r.lab = p_lab AND r.remote AND r.name <> p_name AND r.generation = b.generation
                       AND r.stopped_at IS NULL AND r.heartbeat_at > clock_timestamp() - interval '5 seconds') >= 6 THEN
    RETURN QUERY SELECT 'full', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  IF from_room AND b.visibility = 'shared'
     AND (SELECT count(*) FROM remote_workers r JOIN labs l ON l.id = r.lab AND l.visibility = 'shared' AND l.generation = r.generation
                     WHERE r.remote AND r.client_addr IS NOT DISTINCT FROM inet_client_addr()
                       AND NOT (r.lab = p_lab AND r.name = p_name)
                       AND r.stopped_at IS NULL AND r.heartbeat_at > clock_timestamp() - interval '5 seconds') >= 4 THEN
    RETURN QUERY SELECT 'address_full', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  -- Names are told apart as they look (fl_name_skeleton): "far" would hide "Far", and a Cyrillic
  -- "А" would draw a second lane labelled A.
  IF EXISTS (SELECT 1 FROM remote_workers r WHERE r.lab = p_lab AND fl_name_skeleton(r.name) = fl_name_skeleton(p_name)
                AND r.name <> p_name AND r.stopped_at IS NULL
                AND r.heartbeat_at > clock_timestamp() - interval '5 seconds'
                AND r.generation = b.generation) THEN
    RETURN QUERY SELECT 'name_taken', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  -- One person's line names at most WORKER_LINE_NAMES_PER_LAB workers in a lab (each name is a row the
  -- lab keeps, its lane on the timeline): a new name past that is refused; a name it used is joined again.
  -- Its joins to one lab take turns (until each commits), so that joins at once cannot all pass the count.
  IF from_room THEN
    PERFORM pg_advisory_xact_lock(hashtext('fencing_lab.line_names'), hashtext(p_lab || '/' || session_user));
  END IF;
  IF from_room AND (SELECT count(*) FROM remote_workers r
                     WHERE r.lab = p_lab AND r.joined_as = session_user AND r.name <> p_name) >= fl_bound('worker_line_names_per_lab')
     AND NOT EXISTS (SELECT FROM remote_workers r WHERE r.lab = p_lab AND r.name = p_name AND r.joined_as = session_user) THEN
    RETURN QUERY SELECT 'line_names', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  -- Nor the name of a worker the server runs in the lab: the last word on that name in the lab's
  -- history says whether it still runs.
  SELECT e.kind INTO last_local FROM events e
   WHERE e.lab = p_lab AND fl_name_skeleton(e.actor) = fl_name_skeleton(p_name) AND NOT (e.detail ? 'remote')
     AND e.kind IN ('worker_started', 'worker_restarted', 'worker_stopped', 'worker_crashed')
   ORDER BY e.id DESC LIMIT 1;
  IF last_local IN ('worker_started', 'worker_restarted') THEN
    RETURN QUERY SELECT 'name_taken', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  -- At most MAX_STATUS_ROWS live (heartbeating) workers in a run of a lab: a script cannot plant
  -- lanes without end, and a row left by a worker long gone takes no place.
  IF (SELECT count(*) FROM remote_workers r
       WHERE r.lab = p_lab AND r.generation = b.generation AND r.name <> p_name
         AND r.stopped_at IS NULL AND r.heartbeat_at > clock_timestamp() - interval '5 seconds') >= 16 THEN
    RETURN QUERY SELECT 'full', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  INSERT INTO remote_workers AS r (lab, name, instance, settings, phase, generation, remote, client_addr, joined_as)
  VALUES (p_lab, p_name, p_instance, p_settings, 'starting', b.generation, from_room, inet_client_addr(),
          CASE WHEN from_room THEN session_user::text END)
  ON CONFLICT (lab, name) DO UPDATE
     SET instance = EXCLUDED.instance, settings = EXCLUDED.settings, phase = 'starting', token = NULL,
         remote = EXCLUDED.remote, client_addr = EXCLUDED.client_addr, joined_as = EXCLUDED.joined_as,
         generation = EXCLUDED.generation, believed_until = NULL, armed = false,
         started_at = clock_timestamp(), heartbeat_at = clock_timestamp(), stopped_at = NULL
   WHERE r.stopped_at IS NOT NULL
      OR r.heartbeat_at <= clock_timestamp() - interval '5 seconds'
      OR r.generation <> (SELECT l.generation FROM labs l WHERE l.id = r.lab)
  RETURNING r.generation INTO joined;
  IF joined IS NULL THEN
    RETURN QUERY SELECT 'name_taken', NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  UPDATE worker_commands c SET taken_at = clock_timestamp()
   WHERE c.lab = p_lab AND c.worker = p_name AND c.taken_at IS NULL;
  RETURN QUERY SELECT NULL::text, joined, b.kind, b.row_id, b.resource, b.visibility;
END $$;
