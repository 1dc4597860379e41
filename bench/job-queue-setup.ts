import { makeWorkerUtils, runMigrations } from 'graphile-worker';
import type pg from 'pg';
import { appRoleName, databaseNameOf } from '../db/roles';

/*
 * The job-queue benchmark's database side (bench/job-queue.ts): graphile-worker's schema installed by
 * the owner, the benchmark's own tables, the app role's grants, and what each role can and cannot do.
 * (pg-boss, which it was measured against in issue 24, left the dependencies in issue 37: bench/README.md
 * keeps that comparison's figures.)
 */

export const SCHEMA = 'graphile_worker';
export const QUEUE = 'bench-job';
export type JobData = { n: number; ms: number };
/** One job of bench_job as its runs recorded it (job-queue.ts's RUNS query; job-queue-report.ts reads it). */
export type Run = {
  n: number;
  start_ms: number;
  done_ms: number | null;
  completions: number;
  consumer: string | null;
  started_at: Date | null;
};

/** The owner's URL, run as the app role (`-c role=…`, as db/pool.ts does for the app server's pools). */
export function appUrl(ownerUrl: string): string {
  const url = new URL(ownerUrl);
  url.searchParams.set('options', `-c role=${appRoleName(databaseNameOf(ownerUrl))}`);
  return url.toString();
}

export async function createBenchTables(owner: pg.Client): Promise<void> {
  await owner.query(`
    DROP TABLE IF EXISTS bench_job, bench_job_run, bench_consumer_beat, bench_unlock;
    CREATE TABLE bench_job (n int PRIMARY KEY, enqueued_at timestamptz NOT NULL DEFAULT clock_timestamp());
    CREATE TABLE bench_job_run (id bigserial PRIMARY KEY, n int NOT NULL, consumer text NOT NULL,
      started_at timestamptz NOT NULL DEFAULT clock_timestamp(), done_at timestamptz);
    CREATE TABLE bench_consumer_beat (consumer text PRIMARY KEY, worker_ids text[] NOT NULL,
      beat_at timestamptz NOT NULL DEFAULT clock_timestamp());
    CREATE TABLE bench_unlock (consumer text NOT NULL, by text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp());
  `);
}

/** The library's install, tried as the app role first (the answer is printed), then as the owner. */
export async function install(ownerUrl: string): Promise<string> {
  const asApp = await runMigrations({ connectionString: appUrl(ownerUrl) }).then(
    () => 'yes',
    (error: Error) => `no (${error.message})`,
  );
  if (asApp !== 'yes') await runMigrations({ connectionString: ownerUrl });
  return asApp;
}

/** The app role gets what a running library needs: the schema's tables, sequences and functions. */
export async function grantApp(owner: pg.Client, ownerUrl: string): Promise<void> {
  const app = `"${appRoleName(databaseNameOf(ownerUrl))}"`;
  const schema = SCHEMA;
  await owner.query(`
    GRANT USAGE ON SCHEMA ${schema} TO ${app};
    GRANT ALL ON ALL TABLES IN SCHEMA ${schema} TO ${app};
    GRANT ALL ON ALL SEQUENCES IN SCHEMA ${schema} TO ${app};
    GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ${schema} TO ${app};
    GRANT ALL ON bench_job, bench_job_run, bench_consumer_beat, bench_unlock TO ${app};
    GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO ${app};
  `);
  /*
   * graphile-worker turns row-level security on for its tables (with no policy: only their owner sees a
   * row), so a role that does not own them needs a policy on each.
   */
  const { rows } = await owner.query<{ name: string }>(
    "SELECT format('%I.%I', $1::text, relname) AS name FROM pg_class WHERE relnamespace = $1::regnamespace AND relrowsecurity",
    [schema],
  );
  for (const { name } of rows)
    await owner.query(`CREATE POLICY bench_app ON ${name} TO ${app} USING (true) WITH CHECK (true)`);
}

/** What the library made: its tables and functions. */
export async function describeSchema(owner: pg.Client): Promise<string> {
  const { rows } = await owner.query<{ tables: string; functions: string; rls: string }>(
    `SELECT (SELECT string_agg(c.relname, ', ' ORDER BY c.relname) FROM pg_class c
              WHERE c.relnamespace = $1::regnamespace AND c.relkind IN ('r', 'p')) AS tables,
            (SELECT count(*) FROM pg_proc p WHERE p.pronamespace = $1::regnamespace)::text AS functions,
            (SELECT count(*) FROM pg_class c WHERE c.relnamespace = $1::regnamespace AND c.relrowsecurity)::text AS rls`,
    [SCHEMA],
  );
  return `schema ${SCHEMA}: tables ${rows[0]?.tables}; ${rows[0]?.functions} functions; row-level security on ${rows[0]?.rls}`;
}

/** Can the worker role (what the room's workers log in as) reach the library's jobs? It must not. */
export async function workerReach(workerDb: pg.Client): Promise<string> {
  const table = 'graphile_worker.jobs';
  return workerDb.query(`SELECT count(*) FROM ${table}`).then(
    () => `REACHES ${table}`,
    (error: Error) => `denied (${error.message})`,
  );
}

/** What the app server that took the request does: put a job in the queue. */
export async function makeEnqueuer(url: string) {
  const utils = await makeWorkerUtils({ connectionString: url });
  return {
    send: async (data: JobData) => void (await utils.addJob(QUEUE, data)),
    close: () => utils.release(),
  };
}
