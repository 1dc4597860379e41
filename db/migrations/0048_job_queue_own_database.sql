-- The room's job queue moves to a database of its own (issue 33, db/jobs-database.ts): the worker role
-- may connect to this database and NOTIFY cannot be revoked, and graphile-worker shuts its pool down
-- when it hears 'worker:migrate' here. Its schema and the app servers' beats (job_servers, atomic with
-- its unlocks) are installed in '<this database>_jobs' by db/job-queue-schema.ts after the migrations;
-- what was here is dropped: a job still in it is lost, and its guard attempt or sweep is ended in words
-- by the job runners' repairs (failAbandonedGuardAttempts, finishSweepsWithoutJobs).
DROP TABLE IF EXISTS job_servers;
DROP SCHEMA IF EXISTS graphile_worker CASCADE;
