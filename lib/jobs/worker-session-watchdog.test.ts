import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { setRemoteWorkersOpen } from '../../db/lab-doors';
import { acquireLease, type Lease, recordExpiredLeases } from '../../db/leases';
import { closePool, getPool } from '../../db/pool';
import { localWorkerUrl } from '../supervisor/local-worker-url';
import { freshResource, waitForExpiry } from '../testing/fixtures';
import { waitFor } from '../testing/wait';
import { testWorkerLineUrl } from '../testing/worker-line';
import { startWorkerSessionWatchdog, stopWorkerSessionWatchdog } from './worker-session-watchdog';

/*
 * Anyone holding the worker line gets a session of the worker role. Its limits hold even against a
 * session that sets its own back to 0: a runaway query ends, and a transaction left open while it
 * holds a lab's events lock neither stops another lab's expiries from being recorded nor lasts.
 */

const SHARED_LAB = 'read-check-write';
let workerUrl: string;
const clients: pg.Client[] = [];

async function asWorker(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: workerUrl });
  // A session the watchdog ends reports it here; the test reads the failed query instead.
  client.on('error', () => undefined);
  await client.connect();
  clients.push(client);
  return client;
}

before(async () => {
  workerUrl = await testWorkerLineUrl();
  // The room joins a shared lab only while its trainer opens it to remote workers.
  await setRemoteWorkersOpen(SHARED_LAB, true);
  startWorkerSessionWatchdog();
});
after(async () => {
  stopWorkerSessionWatchdog();
  await setRemoteWorkersOpen(SHARED_LAB, false);
  for (const client of clients) await client.end().catch(() => undefined);
  await closePool();
});

test("a worker session starts with the role's limits", async () => {
  const db = await asWorker();
  const shown = async (setting: string) => (await db.query(`SHOW ${setting}`)).rows[0]?.[setting];
  assert.equal(await shown('statement_timeout'), '2s');
  assert.equal(await shown('lock_timeout'), '1s');
  assert.equal(await shown('idle_in_transaction_session_timeout'), '2s');
  assert.equal(await shown('work_mem'), '4MB');
  // Its own statement_timeout (2 s), or the watchdog's end of a worker line's transaction open past 500 ms, whichever comes first.
  await assert.rejects(
    db.query('SELECT count(*) FROM pg_class a, pg_class b, pg_class c, pg_class d'),
    /canceling statement due to statement timeout|terminating connection due to administrator command/,
  );
});

test("the server's own workers' role (the local worker role) starts with the same limits, and is watched too", async () => {
  const db = new pg.Client({ connectionString: localWorkerUrl() });
  db.on('error', () => undefined);
  await db.connect();
  clients.push(db);
  const shown = async (setting: string) => (await db.query(`SHOW ${setting}`)).rows[0]?.[setting];
  assert.deepEqual(
    [await shown('statement_timeout'), await shown('lock_timeout'), await shown('idle_in_transaction_session_timeout')],
    ['2s', '1s', '2s'],
  );
  await db.query('SET statement_timeout = 0');
  await assert.rejects(db.query('SELECT count(*) FROM pg_class a, pg_class b, pg_class c, pg_class d, pg_class e'));
});

test('a runaway query is ended by the watchdog, also after SET statement_timeout = 0', async () => {
  const db = await asWorker();
  await db.query('SET statement_timeout = 0');
  const started = Date.now();
  await assert.rejects(db.query('SELECT count(*) FROM pg_class a, pg_class b, pg_class c, pg_class d, pg_class e'));
  const tookMs = Date.now() - started;
  assert.ok(tookMs < 8_000, `ended after ${tookMs} ms`);
});

test("a transaction left open on a lab's events lock: other labs' expiries are recorded within 1 s, and it is ended", async () => {
  const db = await asWorker();
  const name = `idle-${randomBytes(3).toString('hex')}`;
  const instance = randomBytes(12).toString('hex');
  const joined = await db.query<{ refusal: string | null }>('SELECT * FROM worker_join($1, $2, $3, $4)', [
    SHARED_LAB,
    name,
    instance,
    JSON.stringify({ name }),
  ]);
  assert.equal(joined.rows[0]?.refusal, null);
  // A lease of the lab it will hold and one of another lab, about to run out.
  const ttlMs = 800;
  const held = await acquireLease({ lab: SHARED_LAB, resource: freshResource('held'), holder: 'H', ttlMs });
  const otherLab = `other-${randomBytes(3).toString('hex')}`;
  const other = await acquireLease({ lab: otherLab, resource: freshResource('other'), holder: 'O', ttlMs });
  assert.equal(held.outcome, 'granted');
  assert.equal(other.outcome, 'granted');
  // Every limit of its own set back, then the lab's events lock taken and held.
  await db.query('SET idle_in_transaction_session_timeout = 0');
  await db.query('SET statement_timeout = 0');
  let ended = false;
  db.once('end', () => {
    ended = true;
  });
  await db.query('BEGIN');
  await db.query("SELECT worker_record_event($1, $2, $3, 'write_sent', NULL, '{}')", [SHARED_LAB, name, instance]);

  assert.equal(ended, false, 'still holding the lock');
  await waitForExpiry((held as { lease: Lease }).lease);
  await waitForExpiry((other as { lease: Lease }).lease);

  const passStarted = Date.now();
  await recordExpiredLeases();
  assert.ok(Date.now() - passStarted < 1_000, `the expiry pass waited ${Date.now() - passStarted} ms on the held lab`);
  const expiries = async (lab: string) =>
    Number(
      (
        await getPool().query<{ n: string }>(
          "SELECT count(*) AS n FROM events WHERE lab = $1 AND kind = 'lease_expired' AND actor = ANY($2)",
          [lab, ['H', 'O']],
        )
      ).rows[0]?.n,
    );
  assert.equal(await expiries(otherLab), 1, "the other lab's expiry is recorded");

  // The watchdog ends the idle transaction; the held lab's expiry follows.
  await waitFor(() => ended, 'the idle session ended', { timeoutMs: 8_000 });
  await waitFor(
    async () => {
      await recordExpiredLeases();
      return (await expiries(SHARED_LAB)) === 1;
    },
    "the held lab's expiry",
    { timeoutMs: 8_000 },
  );
});
