import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { findGuardAttempt } from '../../db/guard-attempts';
import { enqueueGuardAttack } from '../../db/guard-queue';
import { jobsUrlFrom } from '../../db/jobs-database';
import { closeLab, createPrivateLab } from '../../db/labs';
import { closePool, databaseUrl, getJobsPool, getPool, newClient } from '../../db/pool';
import { ensureLocalWorkerPassword, localWorkerUrlFrom } from '../../db/roles';
import { guardShare } from '../model/guard/guard-share';
import { INITIAL_ROW_VALUE } from '../supervisor/lab-reset';
import { waitFor } from '../testing/wait';
import { testWorkerLineUrl } from '../testing/worker-line';
import { JobRunner } from './job-runner';

/*
 * Issue 33: the worker role (a remote trainee's laptop logs in as a line of it) may connect to the lab's
 * database, and NOTIFY cannot be revoked. graphile-worker obeys `worker:migrate` with `breaking` on the
 * database it listens on by shutting its pool down (and setting the process's exit code to 57): every
 * app server's job runner stopped, guards "1st in line" forever. The queue now lives in a database of
 * its own that neither worker role may connect to: the NOTIFY reaches no runner, and a job added after
 * it runs to its end.
 */

const INSUFFICIENT_PRIVILEGE = '42501';
/** pg_hba.conf's refusal: on the embedded cluster a worker role reaches the lab's database only (lib/launcher/pg-access.ts). */
const INVALID_AUTHORIZATION = '28000';
const BREAKING = `NOTIFY "worker:migrate", '{"breaking":true,"migrationNumber":999}'`;

const runner = new JobRunner(1);

/** Whether the server's pg_hba.conf is the one the launcher writes (lib/launcher/pg-access.ts): its embedded cluster. */
async function hbaIsOurs(): Promise<boolean> {
  const owner = newClient();
  await owner.connect();
  try {
    const { rows } = await owner.query<{ hba: string }>("SELECT pg_read_file(current_setting('hba_file')) AS hba");
    return rows[0]?.hba.startsWith('# Written by Fencing Lab') ?? false;
  } catch {
    // Not a superuser (an operator's own PostgreSQL): not ours to judge.
    return false;
  } finally {
    await owner.end();
  }
}

/** A trainee's worker line (a member of the worker role, db/worker-lines.ts) and the local worker role. */
async function workerUrls(): Promise<string[]> {
  return [
    await testWorkerLineUrl({ who: 'job-queue-database' }),
    localWorkerUrlFrom(databaseUrl(), await ensureLocalWorkerPassword(databaseUrl())),
  ];
}

before(async () => {
  await runner.start();
  // Taking jobs: its first beat is in the job queue's database.
  await waitFor(
    async () => {
      const { rows } = await getJobsPool().query('SELECT 1 FROM job_servers WHERE id = $1', [runner.server]);
      return rows.length > 0 ? true : undefined;
    },
    'the runner beats',
    { timeoutMs: 20_000 },
  );
});

after(async () => {
  await runner.close();
  await closePool();
});

test("the worker roles' NOTIFY worker:migrate reaches no job runner: they cannot connect to the queue's database, and a job added after it finishes", {
  timeout: 60_000,
}, async () => {
  for (const url of await workerUrls()) {
    const lab = newClient(url);
    await lab.connect();
    try {
      // What any trainee can type: PostgreSQL lets it through on the lab's database.
      await lab.query(BREAKING);
    } finally {
      await lab.end();
    }
  }
  // A job added after the NOTIFY runs to its end on this runner: a guard for a lab closed while it
  // waited is claimed, given its verdict in words and completed (no workers needed). A runner that
  // heard the NOTIFY would have shut its pool down instead, and said so in the exit code.
  const ownerHash = randomBytes(32).toString('hex');
  const lab = await createPrivateLab({
    kind: 'your-guard',
    ownerHash,
    openedFrom: `job-queue-database-${randomBytes(4).toString('hex')}`,
    initialValue: INITIAL_ROW_VALUE,
    opensPerAddress: 1,
    opensWindowMs: 1,
  });
  await closeLab(lab.id);
  const attempt = await enqueueGuardAttack({
    lab: lab.id,
    ownerHash,
    name: 'Ada',
    statement: 'UPDATE guarded_row SET value = $1, last_token = $2 WHERE id = $3 AND last_token <= $2',
    sentBy: { address: '192.0.2.33', share: guardShare(100) },
  });
  const done = await waitFor(
    async () => {
      const now = await findGuardAttempt(attempt.id);
      return now && now.outcome !== 'queued' ? now : undefined;
    },
    'its verdict, from the runner',
    { timeoutMs: 20_000 },
  );
  assert.equal(done.outcome, 'failed');
  assert.equal(done.verdict, 'the attack did not run: the lab was closed while the guard waited in line');
  const { rows } = await getPool().query<{ run_by: string }>('SELECT run_by FROM guard_attempts WHERE id = $1', [
    attempt.id,
  ]);
  assert.equal(rows[0]?.run_by, runner.server, 'run by this runner');
  await waitFor(
    async () => {
      const job = await getJobsPool().query('SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE key = $1', [
        `guard_attempt:${attempt.id}`,
      ]);
      return job.rows[0].n === 0 ? true : undefined;
    },
    'the job completed',
    { timeoutMs: 10_000 },
  );
  // Asked only now: the runner took and finished a job after the NOTIFY, so it has had the time to hear it.
  assert.notEqual(process.exitCode, 57, 'graphile-worker heard a breaking migration');

  // Neither a trainee's line nor the local worker role can even connect to the queue's database: on
  // any PostgreSQL, no CONNECT; on the embedded cluster, pg_hba.conf refuses them first.
  for (const url of await workerUrls()) {
    const jobs = newClient(jobsUrlFrom(url));
    await assert.rejects(
      jobs.connect(),
      (error: { code?: string; message?: string }) =>
        (error.code === INSUFFICIENT_PRIVILEGE && /permission denied for database/.test(error.message ?? '')) ||
        (error.code === INVALID_AUTHORIZATION && /pg_hba\.conf rejects connection/.test(error.message ?? '')),
      `${new URL(url).username} connecting to the jobs database`,
    );
    // The refused connection has nothing to end.
    await jobs.end().catch(() => undefined);
  }
});

test("on the embedded cluster a worker role reaches the lab's database only: not postgres, not template1 (issue 33)", async (t) => {
  if (!(await hbaIsOurs())) return t.skip('pg_hba.conf is the operator’s on their own PostgreSQL');
  for (const url of await workerUrls()) {
    for (const database of ['postgres', 'template1']) {
      const other = new URL(url);
      other.pathname = `/${database}`;
      const client = newClient(other.toString());
      await assert.rejects(
        client.connect(),
        (error: { code?: string; message?: string }) =>
          error.code === INVALID_AUTHORIZATION && /pg_hba\.conf rejects connection/.test(error.message ?? ''),
        `${other.username} connecting to ${database}`,
      );
      await client.end().catch(() => undefined);
    }
    // Its own database still lets it in.
    const own = newClient(url);
    await own.connect();
    await own.end();
  }
});
