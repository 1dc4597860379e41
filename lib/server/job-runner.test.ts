import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { findGuardAttempt } from '../../db/guard-attempts';
import { enqueueGuardAttack } from '../../db/guard-queue';
import { closeLab, createPrivateLab, type LabRecord } from '../../db/labs';
import { closePool, getJobsPool, getPool } from '../../db/pool';
import { findSweep, finishSweepsWithoutJobs, insertSweep, sweepResults } from '../../db/sweeps';
import { guardShare } from '../model/guard/guard-share';
import { INITIAL_ROW_VALUE } from '../supervisor/lab-reset';
import { asAlone, GUARD_CLASSES, type GuardClass } from '../testing/guard-classes';
import { waitFor } from '../testing/wait';

/*
 * Two app servers on one database (each a process running the job runner, as Next does): a guard
 * attack whose server is killed with SIGKILL in the middle is finished by the other, and its verdict
 * is written once, by the server that finished it; a sweep's run likewise, its result written once.
 */

type Host = { child: ChildProcess; server: string };
const hosts: Host[] = [];
const labs: LabRecord[] = [];
/** Within a share no test here reaches (db/guard-shares.test.ts counts them). */
const sentBy = { address: '192.0.2.26', share: guardShare(100) };

async function startHost(slots = 1): Promise<Host> {
  const child = spawn(
    process.execPath,
    ['--conditions=react-server', '--import', 'tsx', 'lib/testing/job-server-host.ts', String(slots)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const server = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      const ready = /^ready (\S+)$/m.exec(out);
      if (ready) resolve(ready[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`job server exited early (${code})`)));
  });
  const host = { child, server };
  hosts.push(host);
  return host;
}

async function stopHosts(): Promise<void> {
  for (const { child } of hosts) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  await Promise.all(
    hosts.map(
      ({ child }) =>
        new Promise((resolve) =>
          child.exitCode !== null || child.signalCode !== null ? resolve(0) : child.once('exit', resolve),
        ),
    ),
  );
}

after(async () => {
  await stopHosts();
  for (const lab of labs) await closeLab(lab.id);
  await closePool();
});

const SET = 'UPDATE guarded_row SET value = $1, last_token = $2 WHERE id = $3';

async function yourGuardLab(): Promise<{ lab: LabRecord; ownerHash: string }> {
  const ownerHash = randomBytes(32).toString('hex');
  const lab = await createPrivateLab({
    kind: 'your-guard',
    ownerHash,
    openedFrom: `job-runner-${randomBytes(4).toString('hex')}`,
    initialValue: INITIAL_ROW_VALUE,
    opensPerAddress: 1,
    opensWindowMs: 1,
  });
  labs.push(lab);
  return { lab, ownerHash };
}

test('kill -9 of the server attacking a guard: the other server attacks it again and writes its verdict, once', async () => {
  const [one, two] = await Promise.all([startHost(), startHost()]);
  const { lab, ownerHash } = await yourGuardLab();
  const attempt = await enqueueGuardAttack({
    lab: lab.id,
    ownerHash,
    name: 'Ada',
    statement: `${SET} AND last_token <= $2`,
    sentBy,
  });
  const claimed = await waitFor(
    async () => {
      const { rows } = await getPool().query<{ run_by: string | null }>(
        'SELECT run_by FROM guard_attempts WHERE id = $1',
        [attempt.id],
      );
      return rows[0]?.run_by ?? undefined;
    },
    'a server claims the attack',
    { timeoutMs: 30_000 },
  );
  const victim = [one, two].find((host) => host?.server === claimed);
  const survivor = [one, two].find((host) => host?.server !== claimed);
  assert.ok(victim && survivor, `claimed by ${claimed}`);
  victim.child.kill('SIGKILL');
  const killedAt = Date.now();

  const reclaimed = await waitFor(
    async () => {
      const { rows } = await getPool().query<{ run_by: string | null }>(
        'SELECT run_by FROM guard_attempts WHERE id = $1',
        [attempt.id],
      );
      return rows[0]?.run_by === survivor.server ? Date.now() : undefined;
    },
    'the other server claims it',
    { timeoutMs: 30_000 },
  );
  const done = await waitFor(
    async () => {
      const now = await findGuardAttempt(attempt.id);
      return now && now.outcome !== 'queued' ? now : undefined;
    },
    'its verdict',
    { timeoutMs: 90_000 },
  );
  const seconds = (at: number) => ((at - killedAt) / 1000).toFixed(1);
  console.log(
    `claimed again ${seconds(reclaimed)} s after the kill, verdict ${seconds(Date.now())} s: ${done.verdict}`,
  );
  assert.equal(done.outcome, 'passed', done.verdict);
  assert.match(done.verdict, /^your guard held against the pause story/);
  const { rows } = await getPool().query<{ run_by: string; run_token: string }>(
    'SELECT run_by, run_token FROM guard_attempts WHERE id = $1',
    [attempt.id],
  );
  assert.equal(rows[0]?.run_by, survivor.server, 'finished by the server that lived');
  // The library completes (deletes) the job just after the handler wrote the verdict and returned.
  await waitFor(
    async () => {
      const job = await getJobsPool().query('SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE key = $1', [
        `guard_attempt:${attempt.id}`,
      ]);
      return job.rows[0].n === 0 ? true : undefined;
    },
    'the job complete, not left to run again',
    { timeoutMs: 10_000 },
  );
  survivor.child.kill('SIGTERM');
  await new Promise((resolve) => survivor.child.once('exit', resolve));
});

/** Each guard class twice: three times the two servers' slots, so that most wait in line. */
const AT_ONCE = GUARD_CLASSES.length * 2;

test(`${AT_ONCE} guards submitted at once to two servers: each verdict is the one its statement gets alone`, async () => {
  // One attack at a time each: the two servers share this machine's two CPUs, as one server's default of 2 would.
  await Promise.all([startHost(1), startHost(1)]);
  const queued = await Promise.all(
    Array.from({ length: AT_ONCE }, async (_, i) => {
      const solo = GUARD_CLASSES[i % GUARD_CLASSES.length] as GuardClass;
      const { lab, ownerHash } = await yourGuardLab();
      const attempt = await enqueueGuardAttack({
        lab: lab.id,
        ownerHash,
        name: `T${i}`,
        statement: solo.statement,
        sentBy,
      });
      return { attempt, solo };
    }),
  );
  const startedAt = Date.now();
  const read = () => Promise.all(queued.map(({ attempt }) => findGuardAttempt(attempt.id)));
  const verdicts = await waitFor(
    async () => {
      const now = await read();
      return now.every((a) => a && a.outcome !== 'queued') ? now : undefined;
    },
    'every verdict',
    { timeoutMs: 300_000, everyMs: 500 },
  ).catch(async (error: Error) => {
    const now = await read();
    const words = now.map((a, i) => `T${i}: ${a?.outcome}: ${a?.verdict}`).join('\n');
    throw new Error(`${error.message}; where they stand:\n${words}`);
  });
  console.log(`${AT_ONCE} verdicts in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  const { rows } = await getPool().query<{ run_by: string; n: number }>(
    'SELECT run_by, count(*)::int AS n FROM guard_attempts WHERE id = ANY($1) GROUP BY run_by',
    [queued.map(({ attempt }) => attempt.id)],
  );
  console.log(`jobs per server: ${rows.map((row) => row.n).join(', ')}`);
  queued.forEach(({ solo }, i) => {
    const got = verdicts[i];
    assert.ok(asAlone(solo, got), `T${i} (${solo.name}): ${got?.outcome}: ${got?.verdict}`);
  });
});

test("kill -9 of the server running a sweep's run: the other server runs it again, and each run has one result", async () => {
  // Only these two servers: the earlier tests' are stopped first.
  await stopHosts();
  const [one, two] = await Promise.all([startHost(1), startHost(1)]);
  const id = `s-${randomBytes(5).toString('hex')}`;
  const grid = { pausesMs: [300], ttlsMs: [2_000], driftsPercent: [0] };
  await getPool().query('UPDATE sweeps SET finished_at = clock_timestamp() WHERE finished_at IS NULL');
  assert.ok(await insertSweep({ id, startedBy: 'trainer', grid, concurrency: 1, total: 2 }));
  // The server whose pool locked the sweep's first run.
  const runningOn = await waitFor(
    async () => {
      const { rows } = await getJobsPool().query<{ server: string }>(
        `SELECT s.id AS server FROM graphile_worker.jobs j
           JOIN job_servers s ON j.locked_by = ANY (s.pool_ids)
          WHERE j.key LIKE 'sweep_run:' || $1 || ':%'`,
        [id],
      );
      return rows[0]?.server;
    },
    'a server takes the first run',
    { timeoutMs: 30_000 },
  );
  const victim = [one, two].find((host) => host?.server === runningOn);
  const survivor = [one, two].find((host) => host?.server !== runningOn);
  assert.ok(victim && survivor, `taken by ${runningOn}`);
  victim.child.kill('SIGKILL');
  const killedAt = Date.now();
  const sweep = await waitFor(
    async () => {
      await finishSweepsWithoutJobs();
      const now = await findSweep(id);
      return now?.finishedAt ? now : undefined;
    },
    'the sweep to end',
    { timeoutMs: 120_000 },
  );
  console.log(`the sweep ended ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill`);
  assert.equal(sweep.failure, undefined);
  const results = await sweepResults(id);
  assert.deepEqual(
    results.map((r) => [r.index, r.fencing, r.outcome, r.failure]),
    [
      [0, 'unfenced', 'no-stale-write', undefined],
      [1, 'fenced', 'no-stale-write', undefined],
    ],
  );
  survivor.child.kill('SIGTERM');
  await new Promise((resolve) => survivor.child.once('exit', resolve));
});
