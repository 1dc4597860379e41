import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pg from 'pg';
import { waitFor } from '../lib/testing/wait';
import { testWorkerLineUrl } from '../lib/testing/worker-line';
import { closePool, getPool } from './pool';
import { endBlockingWorkerSessions, WORKER_LINE_CONNECTIONS } from './worker-lines';

/*
 * Issue 33, review: a person's worker line holds at most WORKER_LINE_CONNECTIONS connections. Parallel
 * query is a user setting: a line's session may ask for parallel workers over the catalogs anyone may
 * read, and each is a backend of its own that the connection limit does not count (4 sessions ran 7
 * backends), each burning a CPU and its own work_mem. A line is issued with no parallel query
 * (max_parallel_workers_per_gather = 0), and the watchdog's pass (endBlockingWorkerSessions, every
 * 100 ms in each app server) ends a line's session that SETs it back and leads parallel workers, before
 * its transaction budget: here that budget is a minute, so that only the parallel workers can end it.
 */

const clients: pg.Client[] = [];
after(async () => {
  for (const client of clients) await client.end().catch(() => undefined);
  await closePool();
});

const PARALLEL_SETTINGS =
  'SET max_parallel_workers_per_gather = 8; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; ' +
  'SET min_parallel_table_scan_size = 0; SET statement_timeout = 5000';

async function lineBackends(role: string): Promise<Array<{ pid: number }>> {
  const { rows } = await getPool().query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE usename = $1', [
    role,
  ]);
  return rows;
}

test('a worker line is issued with no parallel query', { timeout: 30_000 }, async () => {
  const db = new pg.Client({ connectionString: await testWorkerLineUrl({ who: 'parallel-probe' }) });
  db.on('error', () => undefined);
  await db.connect();
  try {
    assert.equal(
      (await db.query('SHOW max_parallel_workers_per_gather')).rows[0]?.max_parallel_workers_per_gather,
      '0',
    );
  } finally {
    await db.end();
  }
});

test("a worker line's sessions that ask for parallel workers are ended with them", { timeout: 60_000 }, async () => {
  const url = await testWorkerLineUrl({ who: 'parallel-probe' });
  const role = decodeURIComponent(new URL(url).username);
  const burns: Promise<string>[] = [];
  for (let n = 0; n < WORKER_LINE_CONNECTIONS; n++) {
    const db = new pg.Client({ connectionString: url });
    db.on('error', () => undefined);
    await db.connect();
    clients.push(db);
    await db.query(PARALLEL_SETTINGS);
    burns.push(
      db.query('SELECT count(*) FROM pg_attribute a, pg_attribute b, pg_attribute c').then(
        () => 'finished',
        (error: Error) => error.message,
      ),
    );
  }
  const seen = await waitFor(async () => {
    const backends = await lineBackends(role);
    return backends.length > WORKER_LINE_CONNECTIONS ? backends : undefined;
  }, "the line's sessions to run parallel workers");
  // The app's role sees another role's backends, not what they are: past its connections, they are parallel workers.
  assert.ok(seen.length > WORKER_LINE_CONNECTIONS);
  const ended = await endBlockingWorkerSessions({ waitMs: 150, transactionMs: 60_000 });
  assert.ok(ended >= 1, `the pass ended ${ended} sessions`);
  // Each burn that ran parallel workers ends, and not by finishing or by its own 5 s limit.
  const ends = await Promise.all(burns);
  assert.ok(
    ends.some((end) => /terminating connection due to administrator command|Connection terminated/.test(end)),
    ends.join('; '),
  );
  await waitFor(
    async () => (await lineBackends(role)).length <= WORKER_LINE_CONNECTIONS,
    "the line's parallel workers to end",
  );
  // The line itself still works: a new session runs a worker's call.
  const again = new pg.Client({ connectionString: url });
  again.on('error', () => undefined);
  await again.connect();
  clients.push(again);
  assert.equal((await again.query('SELECT 1 AS one')).rows[0]?.one, 1);
});
