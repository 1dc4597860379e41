import 'server-only';
import { Logger, runMigrations } from 'graphile-worker';
import type pg from 'pg';
import { ensureJobsDatabase, jobsUrlFrom } from './jobs-database';
import { newClient } from './pool';
import { appRoleName, databaseNameOf } from './roles';

/*
 * The job queue's schema (issue 24): graphile-worker 0.17 (chosen by measuring it against pg-boss,
 * bench/README.md "Issue 24"), installed by the owner after our migrations, in a database of its own
 * (issue 33, db/jobs-database.ts): the worker role may connect to the lab's database and NOTIFY there,
 * and graphile-worker shuts its pool down on a `worker:migrate` notification; the jobs database lets
 * in only the owner and the app role. Beside the library's schema, what must be atomic with it: the
 * app servers' beats (`job_servers`, db/job-servers.ts), whose dead peers' jobs are unlocked in the
 * same statement. The app role runs it: USAGE on its schema and its tables, sequences and functions
 * (its migrations only read: a runner checks them at start), and a policy on each table the library
 * puts under row-level security (it adds none, so only their owner would see a row).
 */

export const JOB_SCHEMA = 'graphile_worker';

const quiet = new Logger(() => (level, message) => {
  if (level === 'error') console.error(`[jobs] ${message}`);
});

/**
 * Makes the jobs database if missing (as `owner`, the lab database's owner session), installs or
 * upgrades the library's schema and `job_servers` in it, then the app role's access. Returns the jobs
 * database's URL.
 */
export async function installJobQueue(owner: pg.Client, ownerUrl: string): Promise<string> {
  const labDatabase = databaseNameOf(ownerUrl);
  const appRole = appRoleName(labDatabase);
  await ensureJobsDatabase(owner, labDatabase, appRole);
  const jobsUrl = jobsUrlFrom(ownerUrl);
  await runMigrations({ connectionString: jobsUrl, logger: quiet });
  const jobs = newClient(jobsUrl);
  await jobs.connect();
  try {
    await grantJobQueue(jobs, appRole);
  } finally {
    await jobs.end();
  }
  return jobsUrl;
}

async function grantJobQueue(jobs: pg.Client, appRole: string): Promise<void> {
  const app = jobs.escapeIdentifier(appRole);
  await jobs.query(`
    REVOKE CREATE ON SCHEMA public FROM PUBLIC;
    CREATE TABLE IF NOT EXISTS job_servers (
      id       text PRIMARY KEY CHECK (length(id) <= 200),
      pool_ids text[] NOT NULL DEFAULT '{}',
      slots    integer NOT NULL CHECK (slots BETWEEN 0 AND 64),
      beat_at  timestamptz NOT NULL DEFAULT clock_timestamp()
    );
    GRANT SELECT, INSERT, UPDATE, DELETE ON job_servers TO ${app};
    GRANT USAGE ON SCHEMA ${JOB_SCHEMA} TO ${app};
    GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${JOB_SCHEMA} TO ${app};
    REVOKE INSERT, UPDATE, DELETE ON ${JOB_SCHEMA}.migrations FROM ${app};
    GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA ${JOB_SCHEMA} TO ${app};
    GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ${JOB_SCHEMA} TO ${app};
  `);
  const { rows } = await jobs.query<{ name: string; policed: boolean }>(
    `SELECT format('%I.%I', $1::text, c.relname) AS name,
            EXISTS (SELECT FROM pg_policy p WHERE p.polrelid = c.oid AND p.polname = 'fencing_lab_app') AS policed
       FROM pg_class c WHERE c.relnamespace = $1::regnamespace AND c.relrowsecurity`,
    [JOB_SCHEMA],
  );
  for (const { name, policed } of rows) {
    if (!policed) await jobs.query(`CREATE POLICY fencing_lab_app ON ${name} TO ${app} USING (true) WITH CHECK (true)`);
  }
}
