import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { holdJobs } from '../lib/testing/held-jobs';
import { beatJobServer, leaveJobServers } from './job-servers';
import { closePool, getJobsPool } from './pool';
import { SWEEP_RUN_TASK } from './sweeps';
import { enqueueWhatIf, WHAT_IF_TASK, whatIfPending, whatIfWait } from './what-if-jobs';

/*
 * A what-if fork's run while it waits in the room's queue (db/what-if-jobs.ts): read from the job
 * rows when its page asks. Waiting while no server has taken it, with the jobs a server takes first;
 * nothing once a server has locked it, or once it is done. No app server's runner runs here: a pool
 * of the test's (lib/testing/held-jobs.ts) takes a job and holds it when a server is to run it.
 */

// Fork labs by id only: the job carries nothing else, and no runner here takes it.
const forkLab = () => `p-${randomBytes(6).toString('hex')}`;
const added: string[] = [];
const keyOf = (lab: string) => `what_if:${lab}`;

async function queued(): Promise<string> {
  const lab = forkLab();
  await enqueueWhatIf(lab);
  added.push(lab);
  return lab;
}

const QUEUE = `what-if-test:${randomBytes(4).toString('hex')}`;

after(async () => {
  await getJobsPool().query(
    `SELECT graphile_worker.complete_jobs(array(SELECT id FROM graphile_worker.jobs WHERE key = ANY($1) OR key LIKE $2))`,
    [added.map(keyOf), `${QUEUE}:%`],
  );
  await leaveJobServers('what-if-test-server');
  await closePool();
});

test('queued and not taken: waiting, behind the jobs added before it; taken by a server: not waiting', async () => {
  const first = await queued();
  const second = await queued();
  const [one, two] = [await whatIfWait(first), await whatIfWait(second)];
  assert.ok(one && two, 'both wait');
  assert.equal(two.ahead, one.ahead + 1, 'the second is behind the first');

  // A server's pool takes the first (the older): it runs, and its page says nothing more; the second moves up.
  const server = await holdJobs([WHAT_IF_TASK]);
  try {
    assert.equal(await server.taken(), keyOf(first));
    assert.equal(await whatIfWait(first), undefined);
    assert.equal((await whatIfWait(second))?.ahead, one.ahead);
  } finally {
    // Done (graphile-worker deletes a completed job): nothing either.
    await server.stop();
  }
  assert.deepEqual(server.keys, [keyOf(first)]);
  assert.equal(await whatIfPending(first), false);
  assert.equal(await whatIfWait(first), undefined);
  // A fork that never had a job: nothing.
  assert.equal(await whatIfWait(forkLab()), undefined);
});

test('a fork whose tries are spent does not wait; whether a server takes jobs is read from their beats', async () => {
  const lab = await queued();
  await leaveJobServers('what-if-test-server');
  assert.ok(await whatIfWait(lab));
  await beatJobServer({
    server: 'what-if-test-server',
    poolIds: [],
    slots: 1,
    staleMs: 60_000,
    judge: false,
    activeJobIds: [],
  });
  assert.equal((await whatIfWait(lab))?.serversUp, true);

  await getJobsPool().query(
    `SELECT graphile_worker.permanently_fail_jobs(array(SELECT id FROM graphile_worker.jobs WHERE key = $1), 'spent')`,
    [keyOf(lab)],
  );
  assert.equal(await whatIfWait(lab), undefined);
});

test("a sweep's queue puts its first run ahead of a fork; once busy it holds a slot, and holds the line when it holds them all", async () => {
  // This file has its lane's database to itself: only this test's server beats.
  await getJobsPool().query("DELETE FROM job_servers WHERE id <> 'what-if-test-server'");
  const beat = (slots: number) =>
    beatJobServer({
      server: 'what-if-test-server',
      poolIds: [],
      slots,
      staleMs: 60_000,
      judge: false,
      activeJobIds: [],
    });
  await leaveJobServers('what-if-test-server');
  await beat(2);
  const lab = await queued();
  const alone = (await whatIfWait(lab))?.ahead ?? Number.NaN;
  // Two runs of one sweep queue, added before the fork (a minute earlier).
  for (const n of [1, 2]) {
    await getJobsPool().query(
      `SELECT graphile_worker.add_job('sweep_run', '{}'::json, queue_name => $1, job_key => $1 || ':' || $2::text,
                                      run_at => now() - interval '1 minute')`,
      [QUEUE, n],
    );
  }
  assert.equal((await whatIfWait(lab))?.ahead, alone + 1, 'a queue not running puts its first run ahead, not both');

  // A server runs the first: the queue is busy, and holds one of the 2 slots; its second run waits for it.
  const server = await holdJobs([SWEEP_RUN_TASK]);
  try {
    assert.equal(await server.taken(), `${QUEUE}:1`);
    assert.equal((await whatIfWait(lab))?.ahead, alone, 'the other slot takes the fork first');

    // One slot in the room, held by the sweep: its next run goes first (the freed slot asks again at once).
    await leaveJobServers('what-if-test-server');
    await beat(1);
    assert.equal((await whatIfWait(lab))?.ahead, alone + 1);
  } finally {
    await server.stop();
    await leaveJobServers('what-if-test-server');
  }
});
