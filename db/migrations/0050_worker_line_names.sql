-- Issue 33, review: which person's worker line joined a worker (worker_join sets it to session_user;
-- NULL for a worker an app server started, on the local role). It bounds what one line can leave
-- behind in a lab (at most 8 names: each new name was a row kept for ever, about 150 in 2 s), and
-- tells a line that still runs a worker from one its person left idle with a session open, which
-- fl_issue_worker_line takes back when the room's lines run out.
ALTER TABLE remote_workers ADD COLUMN joined_as text;
CREATE INDEX remote_workers_joined_as ON remote_workers (joined_as, lab) WHERE joined_as IS NOT NULL;
