import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, test } from 'node:test';
import { guardShare } from '../lib/model/guard/guard-share';
import { INITIAL_ROW_VALUE } from '../lib/supervisor/lab-reset';
import { holdJobs } from '../lib/testing/held-jobs';
import { findGuardAttempt } from './guard-attempts';
import {
  addGuardAttackJob,
  claimGuardAttempt,
  enqueueGuardAttack,
  failAbandonedGuardAttempts,
  finishGuardAttempt,
  GUARD_ATTACK_MAX_RUNS,
  GUARD_ATTACK_TASK,
  insertQueuedAttempt,
  queueFacts,
} from './guard-queue';
import { beatJobServer, leaveJobServers } from './job-servers';
import { closeLab, createPrivateLab, type LabRecord } from './labs';
import { closePool, getJobsPool, getPool } from './pool';

/*
 * The line of guard attacks in PostgreSQL (0043, db/guard-queue.ts): one guard in line per trainee,
 * a verdict written once and only by the newest claim, places counted from the line, a spent job's
 * attempt failed in words, and a silent server's jobs unlocked by a peer's beat. A job a server runs
 * is taken by a pool of the test's (lib/testing/held-jobs.ts); only a crash (a pool that died, or
 * could not record a failure, holding a job) is staged on graphile-worker's private tables, as no
 * public function locks a job (their columns are pinned by db/job-queue-surface.test.ts).
 */

const SET = 'UPDATE guarded_row SET value = $1, last_token = $2 WHERE id = $3 AND last_token <= $2';
const owners: string[] = [];
const labs: LabRecord[] = [];

async function labOf(owner = randomBytes(32).toString('hex')): Promise<{ lab: LabRecord; ownerHash: string }> {
  const lab = await createPrivateLab({
    kind: 'your-guard',
    ownerHash: owner,
    openedFrom: `guard-queue-${randomBytes(4).toString('hex')}`,
    initialValue: INITIAL_ROW_VALUE,
    opensPerAddress: 1,
    opensWindowMs: 1,
  });
  labs.push(lab);
  owners.push(owner);
  return { lab, ownerHash: owner };
}

/** Within a share no test here reaches (db/guard-shares.test.ts counts them). */
const sentBy = { address: '192.0.2.24', share: guardShare(100) };
const enqueue = async (owner: { lab: LabRecord; ownerHash: string }, name = 'Ada') =>
  enqueueGuardAttack({ lab: owner.lab.id, ownerHash: owner.ownerHash, name, statement: SET, sentBy });

/** Nothing else in line: every test starts from an empty line of its own, with no job of any kind. */
async function clearLine(): Promise<void> {
  await getPool().query(
    `UPDATE guard_attempts SET outcome = 'failed', verdict = 'cleared by a test' WHERE outcome = 'queued'`,
  );
  // Every job, of every kind: a place in line counts them all (this file has its lane's database to itself).
  // The pools locking any are the tests' staged dead ones (a held pool is stopped by its test).
  await getJobsPool().query(
    `SELECT graphile_worker.force_unlock_workers(
              array(SELECT DISTINCT locked_by FROM graphile_worker.jobs WHERE locked_by IS NOT NULL))`,
  );
  await getJobsPool().query('SELECT graphile_worker.complete_jobs(array(SELECT id FROM graphile_worker.jobs))');
}

before(clearLine);
beforeEach(clearLine);
after(async () => {
  await clearLine();
  for (const lab of labs) await closeLab(lab.id);
  await closePool();
});

test('one guard in line per trainee: a second is refused in words, another trainee joins the line', async () => {
  const ada = await labOf();
  const first = await enqueue(ada);
  assert.equal(first.outcome, 'queued');
  await assert.rejects(enqueue(ada), /^FencingError: your guard is already in line: wait for its verdict/);
  const bob = await enqueue(await labOf(), 'Bob');
  assert.equal(bob.outcome, 'queued');
  const { rows } = await getJobsPool().query(
    `SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = 'guard_attack' AND key = ANY($1)`,
    [[`guard_attempt:${first.id}`, `guard_attempt:${bob.id}`]],
  );
  assert.equal(rows[0].n, 2, 'each attempt in line has its job');
});

test('a verdict is written once, by the newest claim only: a run presumed dead that wakes is fenced off', async () => {
  const attempt = await enqueue(await labOf());
  const first = await claimGuardAttempt(attempt.id, 'server-1');
  const second = await claimGuardAttempt(attempt.id, 'server-2');
  assert.ok(first && second);
  assert.ok(second.runToken > first.runToken, 'each claim takes a newer run token');
  assert.equal(
    await finishGuardAttempt(attempt.id, first.runToken, { outcome: 'violation', verdict: 'stale run' }),
    false,
  );
  assert.equal(await finishGuardAttempt(attempt.id, second.runToken, { outcome: 'passed', verdict: 'held' }), true);
  assert.equal(
    await finishGuardAttempt(attempt.id, second.runToken, { outcome: 'violation', verdict: 'again' }),
    false,
  );
  assert.equal(
    await claimGuardAttempt(attempt.id, 'server-3'),
    undefined,
    'an attempt with its verdict is not claimed',
  );
  const stored = await findGuardAttempt(attempt.id);
  assert.equal(stored?.outcome, 'passed');
  assert.equal(stored?.verdict, 'held');
});

test('places: the waiting counted in order, the attacked at 0; slots from the servers that beat', async () => {
  const a = await enqueue(await labOf(), 'A');
  const b = await enqueue(await labOf(), 'B');
  const c = await enqueue(await labOf(), 'C');
  const server = await holdJobs([GUARD_ATTACK_TASK]);
  assert.equal(await server.taken(), `guard_attempt:${a.id}`, 'the oldest is taken first');
  await claimGuardAttempt(a.id, 'server-1');
  await beatJobServer({
    server: 'test-server-1',
    poolIds: [],
    slots: 2,
    staleMs: 60_000,
    judge: true,
    activeJobIds: [],
  });
  try {
    const facts = await queueFacts([a.id, b.id, c.id]);
    assert.deepEqual(
      [a, b, c].map((x) => [facts.get(x.id)?.running, facts.get(x.id)?.ahead]),
      [
        [true, 0],
        [false, 0],
        [false, 1],
      ],
    );
    assert.equal(facts.get(c.id)?.runningNow, 1);
    assert.ok((facts.get(c.id)?.slots ?? 0) >= 2);
  } finally {
    await leaveJobServers('test-server-1');
    await server.stop();
  }
});

test("a place counts the room's other jobs a server takes first (a fork's run), and every job running holds a slot", async () => {
  const fork = `p-${randomBytes(6).toString('hex')}`;
  await getJobsPool().query(
    `SELECT graphile_worker.add_job('what_if', json_build_object('lab', $1::text), job_key => 'what_if:' || $1)`,
    [fork],
  );
  const a = await enqueue(await labOf(), 'A');
  assert.equal((await queueFacts([a.id])).get(a.id)?.ahead, 1, "the fork's run is taken first");
  const server = await holdJobs(['what_if']);
  try {
    assert.equal(await server.taken(), `what_if:${fork}`);
    const facts = (await queueFacts([a.id])).get(a.id);
    assert.deepEqual([facts?.ahead, facts?.runningNow], [0, 1], "the fork's run now holds a slot");
  } finally {
    await server.stop();
  }
});

test('an attempt whose job is spent (its servers died every time) is failed in words, not left in line', async () => {
  const attempt = await enqueue(await labOf());
  // Its tries spent, with the last one's error, as graphile-worker's administrative function leaves it.
  await getJobsPool().query(
    `SELECT graphile_worker.permanently_fail_jobs(array(SELECT id FROM graphile_worker.jobs WHERE key = $1),
                                                  'the lab closed under it')`,
    [`guard_attempt:${attempt.id}`],
  );
  assert.ok((await failAbandonedGuardAttempts()) >= 1);
  const stored = await findGuardAttempt(attempt.id);
  assert.equal(stored?.outcome, 'failed');
  assert.equal(
    stored?.verdict,
    `the attack could not finish after ${GUARD_ATTACK_MAX_RUNS} tries: the lab closed under it; submit it again`,
  );
});

test('a crash between an attempt and its job (two databases): not judged within the grace, failed in words after it', async () => {
  const ada = await labOf();
  // The first step only: the process died before the job reached the job queue's database.
  const orphan = await insertQueuedAttempt({
    lab: ada.lab.id,
    ownerHash: ada.ownerHash,
    name: 'Ada',
    statement: SET,
    sentBy,
  });
  assert.equal(await failAbandonedGuardAttempts(), 0, 'a row whose job may be on its way is not abandoned');
  assert.equal((await findGuardAttempt(orphan.id))?.outcome, 'queued');
  // Adding its job is idempotent (its key is the attempt's): two adds, one job.
  const bob = await labOf();
  const withJob = await insertQueuedAttempt({
    lab: bob.lab.id,
    ownerHash: bob.ownerHash,
    name: 'Bob',
    statement: SET,
    sentBy,
  });
  await addGuardAttackJob(withJob.id);
  await addGuardAttackJob(withJob.id);
  const { rows } = await getJobsPool().query('SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE key = $1', [
    `guard_attempt:${withJob.id}`,
  ]);
  assert.equal(rows[0].n, 1);
  // Past the grace (0 here): the one without a job is failed in words, the one with its job waits on.
  assert.equal(await failAbandonedGuardAttempts(undefined, undefined, { graceMs: 0 }), 1);
  const failed = await findGuardAttempt(orphan.id);
  assert.equal(failed?.outcome, 'failed');
  assert.equal(failed?.verdict, 'the attack could not finish: its job is gone; submit it again');
  assert.equal((await findGuardAttempt(withJob.id))?.outcome, 'queued');
});

test("a server that stops beating is forgotten by a peer's beat, which unlocks its pools' jobs", async () => {
  const attempt = await enqueue(await labOf());
  const key = `guard_attempt:${attempt.id}`;
  // A crash, staged on the private tables: a pool that died holding the job.
  await getJobsPool().query(
    `UPDATE graphile_worker._private_jobs SET locked_at = now(), locked_by = 'dead-pool', attempts = 1 WHERE key = $1`,
    [key],
  );
  await beatJobServer({
    server: 'test-dead',
    poolIds: ['dead-pool'],
    slots: 1,
    staleMs: 60_000,
    judge: true,
    activeJobIds: [],
  });
  await getJobsPool().query(`UPDATE job_servers SET beat_at = beat_at - interval '10 seconds' WHERE id = 'test-dead'`);
  const beat = { server: 'test-alive', poolIds: [], slots: 1, staleMs: 2_000, activeJobIds: [] };
  // Back from an outage, every beat is old: a server judges none before it has beaten for staleMs itself.
  assert.deepEqual(await beatJobServer({ ...beat, judge: false }), []);
  const gone = await beatJobServer({ ...beat, judge: true });
  await leaveJobServers('test-alive');
  assert.deepEqual(gone, ['test-dead']);
  const { rows } = await getJobsPool().query('SELECT locked_at, locked_by FROM graphile_worker.jobs WHERE key = $1', [
    key,
  ]);
  assert.deepEqual(rows[0], { locked_at: null, locked_by: null });
});

test("a server's own lock it no longer runs (a failure it could not record) is released by its next beat", async () => {
  const mine = await enqueue(await labOf(), 'Mine');
  const running = await enqueue(await labOf(), 'Running');
  // Staged on the private tables: a live pool holding one job it runs and one whose failure it could not record.
  const lock = (attempt: number) =>
    getJobsPool().query(
      `UPDATE graphile_worker._private_jobs SET locked_at = now() - interval '30 seconds', locked_by = 'my-pool', attempts = 1
        WHERE key = $1 RETURNING id::text`,
      [`guard_attempt:${attempt}`],
    );
  await lock(mine.id);
  const active = (await lock(running.id)).rows[0]?.id as string;
  await beatJobServer({
    server: 'test-me',
    poolIds: ['my-pool'],
    slots: 1,
    staleMs: 60_000,
    judge: false,
    activeJobIds: [active],
  });
  await leaveJobServers('test-me');
  const { rows } = await getJobsPool().query<{ key: string; locked_by: string | null }>(
    'SELECT key, locked_by FROM graphile_worker.jobs WHERE key = ANY($1) ORDER BY id',
    [[`guard_attempt:${mine.id}`, `guard_attempt:${running.id}`]],
  );
  assert.deepEqual(
    rows.map((row) => row.locked_by),
    [null, 'my-pool'],
  );
});

test("a left-over lock in a named queue (a sweep's run) is released with its queue's, as the library's failure frees both", async () => {
  const queue = `guard-queue-test:${randomBytes(4).toString('hex')}`;
  await getJobsPool().query(
    `SELECT graphile_worker.add_job('sweep_run', '{}'::json, queue_name => $1, job_key => $1)`,
    [queue],
  );
  // Staged as a failure its live pool could not record, on the private tables: no public function
  // locks a job (their columns are pinned by db/job-queue-surface.test.ts).
  await getJobsPool().query(
    `WITH job AS (
       UPDATE graphile_worker._private_jobs SET locked_at = now() - interval '30 seconds', locked_by = 'my-pool', attempts = 1
        WHERE key = $1 RETURNING job_queue_id)
     UPDATE graphile_worker._private_job_queues q SET locked_at = now() - interval '30 seconds', locked_by = 'my-pool'
       FROM job WHERE q.id = job.job_queue_id`,
    [queue],
  );
  await beatJobServer({
    server: 'test-me',
    poolIds: ['my-pool'],
    slots: 1,
    staleMs: 60_000,
    judge: false,
    activeJobIds: [],
  });
  await leaveJobServers('test-me');
  const { rows } = await getJobsPool().query(
    `SELECT j.locked_by AS job, q.locked_by AS queue
       FROM graphile_worker._private_jobs j JOIN graphile_worker._private_job_queues q ON q.id = j.job_queue_id
      WHERE j.key = $1`,
    [queue],
  );
  assert.deepEqual(rows[0], { job: null, queue: null });
});
