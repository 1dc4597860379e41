-- fl_idle_worker_line takes the asking browser (p_holder) too, whose own idle lines are taken back
-- first: its first form, of three arguments, is dropped (db/functions puts the new one).
DROP FUNCTION IF EXISTS fl_idle_worker_line(inet, boolean, text);
