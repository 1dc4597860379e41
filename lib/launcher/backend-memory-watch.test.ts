import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pg from 'pg';
import { closePool, databaseUrl, getPool } from '../../db/pool';
import { testWorkerLineUrl } from '../testing/worker-line';
import { type MemoryEnded, privateMemoryOf, watchBackendMemory } from './backend-memory-watch';

/*
 * Issue 33, item 6: `SET work_mem = '3GB'` and a large sort, as a person's worker line: one backend
 * reached 1 GB in 2.9 s before the time watchdog ended it. The launcher's memory watch ends it under
 * the cap (here 128 MB, watched every 100 ms), and the sort's session says it was ended.
 */

const CAP = 128 * 1024 * 1024;

after(async () => {
  await closePool();
});

test('a worker line sorting with work_mem = 3GB is ended by the memory watch before it holds much past the cap', {
  timeout: 60_000,
}, async (t) => {
  const own = (await getPool().query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid as number;
  if ((await privateMemoryOf(own)) === undefined)
    return t.skip('the database runs on another machine: nothing to read in /proc');
  const ended: MemoryEnded[] = [];
  const watch = watchBackendMemory(databaseUrl(), { capBytes: CAP, everyMs: 100, onEnded: (e) => ended.push(e) });
  const db = new pg.Client({ connectionString: await testWorkerLineUrl({ who: 'memory-hog' }) });
  db.on('error', () => undefined);
  try {
    await db.connect();
    const pid = (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
    // Every limit of its own set back: only the memory watch is left to end it.
    await db.query("SET work_mem = '3GB'");
    await db.query('SET statement_timeout = 0');
    const started = Date.now();
    await assert.rejects(
      db.query('SELECT count(*) FROM (SELECT g, md5(g::text) AS m FROM generate_series(1, 30000000) g ORDER BY m) s'),
      /terminating connection due to administrator command|Connection terminated/,
    );
    const tookMs = Date.now() - started;
    assert.equal(ended.length, 1, `one backend ended (${JSON.stringify(ended)})`);
    assert.equal(ended[0]?.pid, pid, 'the sorting one');
    const heldMb = (ended[0]?.bytes ?? 0) / 2 ** 20;
    assert.ok(heldMb < 512, `ended holding ${Math.round(heldMb)} MB (cap 128 MB), after ${tookMs} ms`);
    t.diagnostic(`ended holding ${Math.round(heldMb)} MB, ${tookMs} ms after the sort began`);
  } finally {
    await watch.stop();
    await db.end().catch(() => undefined);
  }
});
