-- The critical-window functions of issue 36 changed their result while they were being built (a
-- two-key lock to a 64-bit one, nothing to a token): a database that ran those builds drops them
-- here, and db/functions puts them back as they are now. Nothing else uses them.
DROP FUNCTION IF EXISTS fl_critical_window_key(text, text, text);
DROP FUNCTION IF EXISTS worker_release_critical_window(text, text, text);
