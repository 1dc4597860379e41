-- execute: owner
-- A worker name as it looks on a lane: case folded, and the Cyrillic and Greek letters that look like
-- Latin ones read as those ("А", Cyrillic, is "a"). Two live workers of a lab may not share one, so
-- that nobody can join beside A as "А" and draw a second lane labelled A (worker_join). Names are
-- NFKC already (worker_join refuses others: a fullwidth "Ａ" is not a name).
CREATE OR REPLACE FUNCTION fl_name_skeleton(p_name text) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT translate(lower(p_name),
                   'авекмнорстухіјѕԁαβεζηικμνορτυχ',
                   'abekmhopctyxijsdabezhikmnoptyx')
$$;
