import 'server-only';
import { Logger, runMigrations } from 'graphile-worker';
import type pg from 'pg';
import { appRoleName, databaseNameOf } from './roles';

/*
 * The job queue's schema (issue 24): graphile-worker 0.17 (chosen by measuring it against pg-boss,
 * bench/README.md "Issue 24"), installed by the owner after our migrations, since its own migrations
 * need CREATE on the database. The app role runs it: USAGE on its schema and its tables, sequences and
 * functions (its migrations only read: a runner checks them at start), and a policy on each table the library puts under row-level security (it adds none, so
 * only their owner would see a row). The worker role gets nothing: the schema is not PUBLIC's.
 */

export const JOB_SCHEMA = 'graphile_worker';

const quiet = new Logger(() => (level, message) => {
  if (level === 'error') console.error(`[jobs] ${message}`);
});

/** Installs or upgrades the library's schema (as the URL's role: the owner), then the app role's access. */
export async function installJobQueue(owner: pg.Client, ownerUrl: string): Promise<void> {
  await runMigrations({ connectionString: ownerUrl, logger: quiet });
  const app = `"${appRoleName(databaseNameOf(ownerUrl))}"`;
  await owner.query(`
    GRANT USAGE ON SCHEMA ${JOB_SCHEMA} TO ${app};
    GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${JOB_SCHEMA} TO ${app};
    REVOKE INSERT, UPDATE, DELETE ON ${JOB_SCHEMA}.migrations FROM ${app};
    GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA ${JOB_SCHEMA} TO ${app};
    GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ${JOB_SCHEMA} TO ${app};
  `);
  const { rows } = await owner.query<{ name: string; policed: boolean }>(
    `SELECT format('%I.%I', $1::text, c.relname) AS name,
            EXISTS (SELECT FROM pg_policy p WHERE p.polrelid = c.oid AND p.polname = 'fencing_lab_app') AS policed
       FROM pg_class c WHERE c.relnamespace = $1::regnamespace AND c.relrowsecurity`,
    [JOB_SCHEMA],
  );
  for (const { name, policed } of rows) {
    if (!policed)
      await owner.query(`CREATE POLICY fencing_lab_app ON ${name} TO ${app} USING (true) WITH CHECK (true)`);
  }
}
