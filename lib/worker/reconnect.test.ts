import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { listEvents } from '../../db/events';
import { migrate } from '../../db/migrate';
import { closePool } from '../../db/pool';
import { ensureLocalWorkerPassword } from '../../db/roles';
import { crashPostmaster, startEmbeddedPostgres } from '../launcher/embedded-postgres';
import { sharedLab } from '../model/lab/lab-instance';
import { getSupervisor } from '../supervisor/supervisor';
import { startTestCluster, type TestCluster } from '../testing/test-cluster';

const FENCED = sharedLab('fenced');

/*
 * A worker outlives a crash of the database, as a real lease client would: it reconnects, says it
 * lost its lease, and acquires a newer token. So does one still starting, or waiting for the lease,
 * when the database dies. On a cluster of its own, since it kills it.
 */

let cluster: TestCluster;

before(async () => {
  cluster = await startTestCluster('reconnect');
  process.env.DATABASE_URL = cluster.url;
  await migrate(cluster.url);
  // The workers the supervisor starts connect as the local worker role, with this cluster's password.
  process.env.FENCING_LAB_LOCAL_WORKER_PASSWORD = await ensureLocalWorkerPassword(cluster.url);
});
after(async () => {
  await getSupervisor().shutdown();
  await closePool();
  await cluster.dispose();
});

test('after kill -9 of the postmaster the workers reconnect, the holder reports its lost lease and takes a newer token', async () => {
  const supervisor = getSupervisor();
  await supervisor.resetLab(FENCED);
  await supervisor.startWorker(FENCED, { name: 'A', leaseTtlMs: 1_000, renewEveryMs: 300, writeEveryMs: 200 });
  // Holding the lease and writing first (a busy machine may take a while to start the process).
  const holding = Date.now() + 20_000;
  while (!(await listEvents({ lab: 'fenced' })).some((e) => e.kind === 'write_accepted')) {
    assert.ok(Date.now() < holding, 'the worker never wrote before the crash');
    await sleep(100);
  }
  // B waits for the lease A holds, retrying its acquire, or is still starting when the database
  // dies (a worker's process takes a while to start): it must come through the crash as well.
  await supervisor.startWorker(FENCED, { name: 'B', leaseTtlMs: 1_000, renewEveryMs: 300, writeEveryMs: 200 });
  await sleep(300);
  await crashPostmaster(cluster);
  const restarted = await startEmbeddedPostgres({ dataDir: cluster.dataDir, preferredPort: cluster.port });
  assert.equal(restarted.port, cluster.port, 'the database came back where the worker looks for it');

  const deadline = Date.now() + 15_000;
  let grants: number[] = [];
  while (Date.now() < deadline) {
    const events = await listEvents({ lab: 'fenced' }).catch(() => []);
    grants = events.filter((e) => e.kind === 'lease_acquired').map((e) => e.token as number);
    if (grants.length >= 2 && events.some((e) => e.kind === 'lease_lost')) break;
    await sleep(100);
  }
  const events = await listEvents({ lab: 'fenced' });
  const lost = events.find((e) => e.kind === 'lease_lost');
  assert.equal(lost?.detail?.reason, 'my database connection was lost');
  assert.ok(grants.length >= 2 && (grants.at(-1) as number) > (grants[0] as number), `grants ${grants}`);
  // Live is a beat since the database came back: a worker still reconnecting on a busy machine
  // has not beaten yet (the clean-clone CI saw A not yet live when B had its grant), so wait for it.
  const beating = Date.now() + 15_000;
  let workers = await supervisor.listWorkers(FENCED);
  while (!workers.every((worker) => worker.alive) && Date.now() < beating) {
    await sleep(200);
    workers = await supervisor.listWorkers(FENCED);
  }
  assert.deepEqual(
    workers.map((worker) => [worker.name, worker.alive]),
    [
      ['A', true],
      ['B', true],
    ],
    'the same processes, still running',
  );

  // What the server sees while the database is away is recorded once it is back: a worker crashed
  // during the outage ends its lane at the crash instead of running on.
  await crashPostmaster(restarted);
  await supervisor.crash(FENCED, 'B');
  await startEmbeddedPostgres({ dataDir: cluster.dataDir, preferredPort: cluster.port });
  const recorded = Date.now() + 15_000;
  for (;;) {
    const ended = (await listEvents({ lab: 'fenced' }).catch(() => [])).filter(
      (e) => e.actor === 'B' && e.kind === 'worker_crashed',
    );
    if (ended.length === 1) break;
    assert.ok(Date.now() < recorded, 'B’s crash during the outage was never recorded');
    await sleep(100);
  }
});
