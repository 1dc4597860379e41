import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, beforeEach, test } from 'node:test';
import { classifyRun, type SweepRunResult } from '../lib/model/sweep/sweep-cell';
import { closePool, getJobsPool, getPool } from './pool';
import {
  addSweepRunJobs,
  findSweep,
  finishSweepsWithoutJobs,
  insertSweep,
  insertSweepRow,
  recordSweepResult,
  stopSweepRow,
  sweepResults,
} from './sweeps';

/*
 * Sweeps in PostgreSQL (0044, db/sweeps.ts): one running in the room, whatever server starts it; one
 * job per run, at most `concurrency` of them in queues of their own; a run's result written once; a
 * stop takes the runs not yet started out of the queue; a sweep ends once no job of it is left, in
 * words when runs could not finish.
 */

const grid = { pausesMs: [300], ttlsMs: [2_000], driftsPercent: [0] };
const newId = () => `s-${randomBytes(5).toString('hex')}`;

/** Nothing running: every test starts the room's one sweep itself. */
async function clearSweeps(): Promise<void> {
  await getJobsPool().query(
    "SELECT graphile_worker.complete_jobs(array(SELECT id FROM graphile_worker.jobs WHERE task_identifier = 'sweep_run'))",
  );
  await getPool().query('UPDATE sweeps SET finished_at = clock_timestamp() WHERE finished_at IS NULL');
}

beforeEach(clearSweeps);
after(async () => {
  await clearSweeps();
  await closePool();
});

async function jobsOf(id: string): Promise<Array<{ key: string; queue: string | null }>> {
  const { rows } = await getJobsPool().query<{ key: string; queue: string | null }>(
    `SELECT key, queue_name AS queue FROM graphile_worker.jobs WHERE key LIKE 'sweep_run:' || $1 || ':%' ORDER BY id`,
    [id],
  );
  return rows;
}

const result = (index: number): SweepRunResult => ({
  ...classifyRun([]),
  index,
  point: { pauseMs: 300, ttlMs: 2_000, driftPercent: 0 },
  fencing: index % 2 ? 'fenced' : 'unfenced',
  lab: `p-test${index}`,
});

test('one sweep runs in the room at a time; its runs are jobs, at most `concurrency` at once', async () => {
  const id = newId();
  assert.equal(await insertSweep({ id, startedBy: 'trainer', grid, concurrency: 1, total: 2 }), true);
  assert.equal(
    await insertSweep({ id: newId(), startedBy: 'owner:x', grid, concurrency: 2, total: 2 }),
    false,
    'a second sweep is refused while the first runs',
  );
  const jobs = await jobsOf(id);
  assert.deepEqual(
    jobs.map((j) => j.key),
    [`sweep_run:${id}:0`, `sweep_run:${id}:1`],
  );
  assert.deepEqual(new Set(jobs.map((j) => j.queue)), new Set([`sweep:${id}:0`]), 'one queue: one run at a time');
});

test("a run's result is written once: a second run of the same index adds nothing", async () => {
  const id = newId();
  await insertSweep({ id, startedBy: 'trainer', grid, concurrency: 2, total: 2 });
  assert.equal(await recordSweepResult(id, result(0)), true);
  assert.equal(await recordSweepResult(id, { ...result(0), lab: 'p-second' }), false);
  assert.deepEqual(
    (await sweepResults(id)).map((r) => r.lab),
    ['p-test0'],
  );
});

test('a stop takes the runs not yet started out of the queue; the sweep then ends, stopped, without a failure', async () => {
  const id = newId();
  await insertSweep({ id, startedBy: 'trainer', grid, concurrency: 2, total: 2 });
  await recordSweepResult(id, result(0));
  await stopSweepRow(id);
  assert.deepEqual(await jobsOf(id), []);
  assert.equal(await finishSweepsWithoutJobs(), 1);
  const sweep = await findSweep(id);
  assert.equal(sweep?.stopped, true);
  assert.ok(sweep?.finishedAt);
  assert.equal(sweep?.failure, undefined);
});

test('a sweep whose runs spent their tries ends, saying how many runs could not finish', async () => {
  const id = newId();
  await insertSweep({ id, startedBy: 'trainer', grid, concurrency: 2, total: 2 });
  assert.equal(await finishSweepsWithoutJobs(undefined, undefined, { graceMs: 0 }), 0, 'waiting runs keep it running');
  await recordSweepResult(id, result(0));
  await getJobsPool().query(
    `SELECT graphile_worker.permanently_fail_jobs(
              array(SELECT id FROM graphile_worker.jobs WHERE key LIKE 'sweep_run:' || $1 || ':%'), 'spent')`,
    [id],
  );
  assert.equal(await finishSweepsWithoutJobs(), 1);
  assert.match(
    (await findSweep(id))?.failure ?? '',
    /^1 of 2 runs could not finish: the app servers running them stopped, or their results could not be written, 3 times$/,
  );
  // The room is free again.
  assert.equal(await insertSweep({ id: newId(), startedBy: 'trainer', grid, concurrency: 1, total: 2 }), true);
});

test('a crash between a sweep and its jobs (two databases): not ended within the grace, ended in words after it', async () => {
  const id = newId();
  // The first step only: the process died before the jobs reached the job queue's database.
  assert.equal(await insertSweepRow({ id, startedBy: 'trainer', grid, concurrency: 1, total: 2 }), true);
  assert.equal(await finishSweepsWithoutJobs(), 0, 'a sweep whose jobs may be on their way is not ended');
  assert.equal(
    await insertSweep({ id: newId(), startedBy: 'trainer', grid, concurrency: 1, total: 2 }),
    false,
    'it holds the room meanwhile',
  );
  // Adding its jobs again adds each once (their keys are the sweep's and the run's).
  await addSweepRunJobs({ id, concurrency: 1, total: 2 });
  await addSweepRunJobs({ id, concurrency: 1, total: 2 });
  assert.equal((await jobsOf(id)).length, 2);
  await getJobsPool().query(
    `SELECT graphile_worker.complete_jobs(array(SELECT id FROM graphile_worker.jobs WHERE key LIKE 'sweep_run:' || $1 || ':%'))`,
    [id],
  );
  // Past the grace (0 here): a sweep without jobs is ended, saying its runs could not finish.
  assert.equal(await finishSweepsWithoutJobs(undefined, undefined, { graceMs: 0 }), 1);
  assert.match((await findSweep(id))?.failure ?? '', /^2 of 2 runs could not finish/);
});
