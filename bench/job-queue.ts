import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { ConsumerArgs } from './job-queue-consumer';
import { jobQueueFigures, type LibResult, printJobQueueTable } from './job-queue-report';
import {
  appUrl,
  createBenchTables,
  describeSchema,
  grantApp,
  install,
  makeEnqueuer,
  QUEUE,
  type Run,
  workerReach,
} from './job-queue-setup';
import type { BenchSizes } from './sizes';

/*
 * Issue 24: the PostgreSQL job library that runs guard attacks as jobs, graphile-worker, measured on this
 * workload (it was chosen over pg-boss by this benchmark; pg-boss left the dependencies in issue 37, and
 * bench/README.md keeps that comparison's figures). On one database: two consumer processes (two "app servers", each running
 * 2 jobs at a time, bench/job-queue-consumer.ts) as the app role. A burst of jobs (each a sleep: the
 * figure is the queue's overhead, not the attack) measures latency, fairness and exactly-once completion;
 * then one consumer is killed with SIGKILL while it runs 2 long jobs, and the other must finish them.
 * Every time is read on the database's clock.
 */

type Size = BenchSizes['jobQueue'];
const CONCURRENCY = 2;
const CRASH_BASE = 1_000;

export async function benchJobQueue(ownerUrl: string, workerUrl: string, size: Size) {
  const results: LibResult[] = [await benchLib(ownerUrl, workerUrl, size)];
  printJobQueueTable(results, size);
  return jobQueueFigures(results, size);
}

async function benchLib(ownerUrl: string, workerUrl: string, size: Size): Promise<LibResult> {
  const owner = new pg.Client({ connectionString: ownerUrl });
  const workerDb = new pg.Client({ connectionString: workerUrl });
  await owner.connect();
  await workerDb.connect();
  const consumers: ChildProcess[] = [];
  try {
    await createBenchTables(owner);
    // The product's migrate installs graphile-worker in a database of its own (db/job-queue-schema.ts); the
    // benchmark installs it on the lab's database, from nothing, as the choice was measured (issue 24).
    await owner.query('DROP SCHEMA IF EXISTS graphile_worker CASCADE');
    const appInstalls = await install(ownerUrl);
    await grantApp(owner, ownerUrl);
    const schema = await describeSchema(owner);
    const workerRole = await workerReach(workerDb);
    let url = appUrl(ownerUrl);
    let appRuns = 'yes';
    try {
      consumers.push(...(await startConsumers(url, size)));
    } catch (error) {
      appRuns = `no (${(error as Error).message})`;
      url = ownerUrl;
      consumers.push(...(await startConsumers(url, size)));
    }
    const enqueuer = await makeEnqueuer(url);
    try {
      const burst = await runBurst(owner, enqueuer.send, size);
      const idle = await idleTransactions(owner, size.idleMs);
      const crash = await runCrash(owner, enqueuer.send, consumers[0] as ChildProcess, size);
      return { lib: 'graphile-worker', schema, appInstalls, appRuns, workerRole, idle, burst, crash };
    } finally {
      await enqueuer.close();
    }
  } finally {
    for (const consumer of consumers) consumer.kill('SIGKILL');
    // The product's queue is in the jobs database (db/jobs-database.ts), untouched: the lab database keeps none.
    await owner.query('DROP SCHEMA IF EXISTS graphile_worker CASCADE');
    await owner.end();
    await workerDb.end();
  }
}

async function startConsumers(url: string, size: Size): Promise<ChildProcess[]> {
  const started = ['c1', 'c2'].map((name) => {
    const args: ConsumerArgs = {
      name,
      url,
      queue: QUEUE,
      concurrency: CONCURRENCY,
      staleAfterMs: size.staleAfterMs,
    };
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/job-queue-consumer.ts', JSON.stringify(args)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
      process.stderr.write(chunk);
    });
    const ready = new Promise<ChildProcess>((resolve, reject) => {
      child.stdout?.on('data', (chunk) => String(chunk).includes('ready') && resolve(child));
      child.once('exit', (code) => reject(new Error(`${name} exited ${code}: ${stderr.trim().split('\n')[0]}`)));
      setTimeout(() => reject(new Error(`${name} not ready in 30 s`)), 30_000).unref();
    });
    return { child, ready };
  });
  try {
    return await Promise.all(started.map((s) => s.ready));
  } catch (error) {
    for (const { child } of started) child.kill('SIGKILL');
    throw error;
  }
}

type Send = (data: { n: number; ms: number }) => Promise<void>;

async function enqueue(owner: pg.Client, send: Send, n: number, ms: number): Promise<void> {
  await owner.query('INSERT INTO bench_job (n) VALUES ($1)', [n]);
  await send({ n, ms });
}

async function waitFor(owner: pg.Client, sql: string, params: unknown[], done: (value: number) => boolean, ms: number) {
  const deadline = Date.now() + ms;
  for (;;) {
    const { rows } = await owner.query<{ v: number }>(sql, params);
    const value = Number(rows[0]?.v);
    if (done(value) || Date.now() > deadline) return value;
    await sleep(50);
  }
}

const RUNS = `SELECT j.n, (extract(epoch FROM min(r.started_at) - j.enqueued_at) * 1000)::float8 AS start_ms,
    (extract(epoch FROM min(r.done_at) - j.enqueued_at) * 1000)::float8 AS done_ms, count(r.done_at)::int AS completions,
    (array_agg(r.consumer ORDER BY r.started_at))[1] AS consumer, min(r.started_at) AS started_at
  FROM bench_job j LEFT JOIN bench_job_run r USING (n) WHERE j.n BETWEEN $1 AND $2
  GROUP BY j.n, j.enqueued_at ORDER BY j.n`;

async function runBurst(owner: pg.Client, send: Send, size: Size) {
  for (let n = 1; n <= size.jobs; n++) await enqueue(owner, send, n, size.jobMs);
  const bound = Math.ceil(size.jobs / (2 * CONCURRENCY)) * size.jobMs * 3 + 30_000;
  await waitFor(
    owner,
    'SELECT count(DISTINCT n) AS v FROM bench_job_run WHERE done_at IS NOT NULL',
    [],
    (v) => v >= size.jobs,
    bound,
  );
  await sleep(size.jobMs + 1_000); // a second completion of some job would show now
  const { rows } = await owner.query<Run>(RUNS, [1, size.jobs]);
  const { rows: gaps } = await owner.query<{ consumer: string; started_at: Date; done_at: Date | null }>(
    'SELECT consumer, started_at, done_at FROM bench_job_run WHERE n <= $1',
    [size.jobs],
  );
  return { runs: rows, gaps };
}

/** Transactions a second with nothing to do (pg_stat_database, so: every session on the database, this one too). */
async function idleTransactions(owner: pg.Client, ms: number): Promise<number> {
  const read = async () => {
    await owner.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await owner.query<{ x: string }>(
      'SELECT xact_commit + xact_rollback AS x FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(rows[0]?.x);
  };
  await sleep(1_500); // the burst's last statistics are flushed (at most once a second per session)
  const before = await read();
  await sleep(ms);
  return ((await read()) - before) / (ms / 1000);
}

async function runCrash(owner: pg.Client, send: Send, victim: ChildProcess, size: Size) {
  const last = CRASH_BASE + size.crashJobs;
  for (let n = CRASH_BASE + 1; n <= last; n++) await enqueue(owner, send, n, size.crashJobMs);
  const startedOnVictim = await waitFor(
    owner,
    "SELECT count(*) AS v FROM bench_job_run WHERE consumer = 'c1' AND n > $1",
    [CRASH_BASE],
    (v) => v >= CONCURRENCY,
    30_000,
  );
  if (startedOnVictim < CONCURRENCY) throw new Error(`c1 started ${startedOnVictim} of the long jobs in 30 s`);
  victim.kill('SIGKILL');
  await once(victim, 'exit');
  const { rows: killed } = await owner.query<{ at: Date }>('SELECT clock_timestamp() AS at');
  const killedAt = killed[0]?.at as Date;
  await waitFor(
    owner,
    'SELECT count(DISTINCT n) AS v FROM bench_job_run WHERE done_at IS NOT NULL AND n > $1',
    [CRASH_BASE],
    (v) => v >= size.crashJobs,
    size.crashBoundMs,
  );
  await sleep(1_000);
  const { rows: victims } = await owner.query<{ n: number; restart_ms: number | null; done_ms: number | null }>(
    `SELECT v.n, (extract(epoch FROM min(r.started_at) - $2) * 1000)::float8 AS restart_ms,
            (extract(epoch FROM min(r.done_at) - $2) * 1000)::float8 AS done_ms
       FROM (SELECT DISTINCT n FROM bench_job_run WHERE consumer = 'c1' AND n > $1 AND done_at IS NULL) v
       LEFT JOIN bench_job_run r ON r.n = v.n AND r.consumer <> 'c1'
      GROUP BY v.n ORDER BY v.n`,
    [CRASH_BASE, killedAt],
  );
  const { rows } = await owner.query<Run>(RUNS, [CRASH_BASE + 1, last]);
  const { rows: unlocks } = await owner.query<{ ms: number }>(
    'SELECT (extract(epoch FROM at - $1) * 1000)::float8 AS ms FROM bench_unlock',
    [killedAt],
  );
  return { victims, runs: rows, unlockMs: unlocks[0]?.ms ?? null };
}
