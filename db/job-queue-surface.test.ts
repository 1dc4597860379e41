import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, test } from 'node:test';
import { allSourceFiles } from '../lib/testing/source-files';
import { closePool, getJobsPool } from './pool';

/*
 * What the product relies on from graphile-worker (issue 37), pinned so that an upgrade that changes
 * it fails here, by name, before a place in line goes wrong in a classroom. The product reads jobs
 * only through the `graphile_worker.jobs` view and calls only documented functions
 * (https://worker.graphile.org/docs/schema "Only use public APIs", docs/jobs-view, docs/sql-add-job,
 * docs/admin-functions). Its `_private_` tables "may change in a patch release": the product writes
 * them in one place only (PRIVATE_USES below, with why), and tests poke them only to stage a crash
 * (a pool that died holding a job); the columns both rely on are pinned here too.
 */

after(closePool);

/** The view's columns the product reads (db/job-line.ts, guard-queue.ts, sweeps.ts, what-if-jobs.ts), with their types. */
const VIEW_COLUMNS = {
  id: 'bigint',
  queue_name: 'text',
  task_identifier: 'text',
  priority: 'smallint',
  run_at: 'timestamp with time zone',
  attempts: 'smallint',
  max_attempts: 'smallint',
  last_error: 'text',
  key: 'text',
  locked_at: 'timestamp with time zone',
  locked_by: 'text',
};

/** The functions the product (and the tests, to stage a case) call, by their full signature and result. */
const FUNCTIONS = [
  'add_job(identifier text, payload json, queue_name text, run_at timestamp with time zone, max_attempts integer, job_key text, priority integer, flags text[], job_key_mode text) → graphile_worker._private_jobs',
  'complete_jobs(job_ids bigint[]) → SETOF graphile_worker._private_jobs',
  'force_unlock_workers(worker_ids text[]) → void',
  'permanently_fail_jobs(job_ids bigint[], error_message text) → SETOF graphile_worker._private_jobs',
  'remove_job(job_key text) → graphile_worker._private_jobs',
];

/** The public names the product's SQL may use: the view and the documented functions above. */
const PUBLIC_NAMES = new Set(['jobs', ...FUNCTIONS.map((fn) => fn.slice(0, fn.indexOf('(')))]);

/**
 * The product's uses of private tables, each with why; the test fails on any other, and on one of
 * these that is gone (the list only shrinks).
 */
const PRIVATE_USES: { file: string; name: string; why: string }[] = [
  {
    file: 'db/job-servers.ts',
    name: '_private_jobs',
    why: "a live server's own left-over lock (a failure the library could not record while the database was away) is released by its beat: force_unlock_workers is only for dead pools, and no public function unlocks one job",
  },
  {
    file: 'db/job-servers.ts',
    name: '_private_job_queues',
    why: "with it, the named queue that job locked, as the library's own failure would have freed it",
  },
];

/** The private columns PRIVATE_USES and the tests' staged crashes rely on. */
const PRIVATE_COLUMNS = {
  _private_jobs: {
    id: 'bigint',
    key: 'text',
    job_queue_id: 'integer',
    locked_at: 'timestamp with time zone',
    locked_by: 'text',
  },
  _private_job_queues: { id: 'integer', queue_name: 'text', locked_at: 'timestamp with time zone', locked_by: 'text' },
};

async function columnsOf(relation: string): Promise<Record<string, string>> {
  const { rows } = await getJobsPool().query<{ name: string; type: string }>(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type
       FROM pg_attribute a
      WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped`,
    [`graphile_worker.${relation}`],
  );
  return Object.fromEntries(rows.map((row) => [row.name, row.type]));
}

/** Only the pinned columns: the docs allow the view new ones. */
const pinned = (columns: Record<string, string>, wanted: Record<string, string>) =>
  Object.fromEntries(Object.keys(wanted).map((name) => [name, columns[name] ?? 'missing']));

test("the jobs view has every column the product reads, with its type (new columns are the library's to add)", async () => {
  const { rows } = await getJobsPool().query<{ kind: string }>(
    `SELECT relkind::text AS kind FROM pg_class WHERE oid = to_regclass('graphile_worker.jobs')`,
  );
  assert.equal(rows[0]?.kind, 'v', 'graphile_worker.jobs is a view');
  assert.deepEqual(pinned(await columnsOf('jobs'), VIEW_COLUMNS), VIEW_COLUMNS);
});

test('the functions the product calls have the signatures it calls them by', async () => {
  const { rows } = await getJobsPool().query<{ fn: string }>(
    `SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ') → ' ||
            CASE WHEN p.proretset THEN 'SETOF ' ELSE '' END || p.prorettype::regtype::text AS fn
       FROM pg_proc p WHERE p.pronamespace = 'graphile_worker'::regnamespace AND p.proname = ANY($1)
      ORDER BY 1`,
    [FUNCTIONS.map((fn) => fn.slice(0, fn.indexOf('(')))],
  );
  assert.deepEqual(
    rows.map((row) => row.fn),
    FUNCTIONS,
  );
});

test("the private columns the beat's own release and the tests' staged crashes rely on", async () => {
  for (const [table, wanted] of Object.entries(PRIVATE_COLUMNS)) {
    assert.deepEqual(pinned(await columnsOf(table), wanted), wanted, table);
  }
});

/** Every `graphile_worker.<name>` in a product file (tests and lib/testing are the harness). */
async function namesUsed(): Promise<{ file: string; name: string }[]> {
  const uses = new Map<string, { file: string; name: string }>();
  for (const file of await allSourceFiles()) {
    if (file.endsWith('.test.ts') || file.startsWith('lib/testing/')) continue;
    for (const match of (await readFile(file, 'utf8')).matchAll(/graphile_worker\.(\w+)/g)) {
      const name = match[1] as string;
      uses.set(`${file} ${name}`, { file, name });
    }
  }
  return [...uses.values()];
}

test('the product uses only the public names, and private tables only where PRIVATE_USES says why', async () => {
  const uses = await namesUsed();
  const allowed = (use: { file: string; name: string }) =>
    PUBLIC_NAMES.has(use.name) || PRIVATE_USES.some((p) => p.file === use.file && p.name === use.name);
  assert.deepEqual(
    uses.filter((use) => !allowed(use)),
    [],
    "graphile-worker's private tables may change in a patch release: read the jobs view, call its documented functions",
  );
  assert.deepEqual(
    PRIVATE_USES.filter((p) => !uses.some((use) => use.file === p.file && use.name === p.name)).map((p) => p.file),
    [],
    'private uses that are gone: remove them from PRIVATE_USES',
  );
});
