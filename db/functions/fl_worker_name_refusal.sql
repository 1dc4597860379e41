-- execute: owner
-- Why a worker's name is refused, or null: the rule of the app's form (lib/model/lab/lab-inputs.ts
-- workerNameSchema, in the words of lib/model/core/input-bounds.ts WORKER_NAME_WORDS), checked by
-- worker_join. ASCII letters and digits only: outside ASCII too many letters look like A (Lisu "ꓮ",
-- Cherokee "Ꭺ", Canadian syllabics "ᗅ", a small capital "ᴀ", "A" and an invisible Hangul filler),
-- and a lane's label must read as what it is. fl_name_skeleton stays as a second defence.
CREATE OR REPLACE FUNCTION fl_worker_name_refusal(p_name text) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT CASE
    WHEN p_name IS NULL OR length(p_name) < 1 OR length(p_name) > public.fl_bound('worker_name_max_chars')
      THEN format('a worker name is 1 to %s characters', public.fl_bound('worker_name_max_chars'))
    -- Ranges are code points in PostgreSQL's regular expressions, whatever the collation.
    WHEN p_name !~ '^[A-Za-z0-9 _.-]+$' THEN 'a worker name is letters and digits of ASCII, space, _ . -'
    WHEN p_name <> btrim(p_name, ' ') OR strpos(p_name, '  ') > 0
      THEN 'a worker name has no leading, trailing or double spaces'
    WHEN p_name ~* '^w[0-9]+$' THEN 'names like w1 are kept for worker ids'
  END
$$;
