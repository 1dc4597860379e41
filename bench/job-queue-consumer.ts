import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger, run, type WorkerEvents } from 'graphile-worker';
import pg from 'pg';

/*
 * One "app server" of the job-queue benchmark (bench/job-queue.ts), its own OS process so that it can
 * be killed with SIGKILL: it runs jobs from graphile-worker's queue, `concurrency` at a time. A job sleeps
 * its `ms` and records its start and its completion in bench_job_run, so completions are counted in SQL.
 * Argument: a JSON ConsumerArgs. Prints `ready` once it takes jobs.
 */

export type ConsumerArgs = {
  name: string;
  /** The app role's URL (or the owner's, when the app role cannot run the library). */
  url: string;
  queue: string;
  concurrency: number;
  /** A consumer whose heartbeat is older than this is dead, and its jobs are unlocked. */
  staleAfterMs: number;
};

type JobData = { n: number; ms: number };

const args = JSON.parse(process.argv[2] ?? '{}') as ConsumerArgs;
const db = new pg.Pool({ connectionString: args.url, max: args.concurrency + 2 });

async function runJob(data: JobData): Promise<void> {
  const { rows } = await db.query<{ id: string }>(
    'INSERT INTO bench_job_run (n, consumer) VALUES ($1, $2) RETURNING id',
    [data.n, args.name],
  );
  await sleep(data.ms);
  await db.query('UPDATE bench_job_run SET done_at = clock_timestamp() WHERE id = $1', [rows[0]?.id]);
}

async function startGraphileWorker(): Promise<void> {
  const poolIds: string[] = [];
  // Passed in, not read from the runner: run() makes its pool before it resolves. Since 0.16 a job's
  // locked_by is its pool's id, not its worker's.
  const events = new EventEmitter() as WorkerEvents;
  events.on('pool:create', ({ workerPool }) => poolIds.push(workerPool.id));
  await run({
    events,
    connectionString: args.url,
    concurrency: args.concurrency,
    pollInterval: 1_000,
    noHandleSignals: true,
    logger: new Logger(() => (level, message) => void (level === 'error' && console.error(`${args.name}: ${message}`))),
    taskList: { [args.queue]: async (payload) => runJob(payload as JobData) },
  });
  console.log('ready');
  /*
   * graphile-worker leaves a dead pool's jobs locked for 4 hours. The liveness it lacks: each consumer
   * beats every 500 ms, and unlocks (force_unlock_workers) the pools of a peer whose beat is stale, in the
   * statement that forgets the peer, so that a survivor dying halfway cannot leave them locked.
   */
  for (;;) {
    await db.query(
      `WITH beat AS (
         INSERT INTO bench_consumer_beat (consumer, worker_ids) VALUES ($1, $2)
         ON CONFLICT (consumer) DO UPDATE SET beat_at = clock_timestamp(), worker_ids = EXCLUDED.worker_ids
       ), dead AS (
         DELETE FROM bench_consumer_beat
          WHERE consumer <> $1 AND beat_at < clock_timestamp() - make_interval(secs => $3::float8 / 1000)
         RETURNING consumer, worker_ids
       ), unlocked AS (
         SELECT consumer, graphile_worker.force_unlock_workers(worker_ids) FROM dead
       )
       INSERT INTO bench_unlock (consumer, by) SELECT consumer, $1 FROM unlocked`,
      [args.name, poolIds, args.staleAfterMs],
    );
    await sleep(500);
  }
}

await startGraphileWorker();
