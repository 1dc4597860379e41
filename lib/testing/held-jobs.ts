import { EventEmitter } from 'node:events';
import { Logger, run, type WorkerEvents } from 'graphile-worker';
import { newPool } from '../../db/pool';
import { waitFor } from './wait';

/*
 * A server's pool that takes jobs and holds them, for the tests that need a job "taken by a server":
 * a real graphile-worker runner on the job queue's database whose tasks wait until it stops, so a
 * job's lock (and its named queue's) is the library's own doing, not a write to its private tables,
 * which may change in a patch release (db/job-queue-surface.test.ts). One job at a time, oldest first,
 * of the tasks named only, as a room's runner takes them. Stopping lets the held jobs complete: the
 * library deletes them.
 */

export type HeldJobs = {
  /** The keys of the jobs taken so far, in the order they were taken. */
  readonly keys: readonly string[];
  /** Waits for its `n`th job (1 for the first) to be taken, locked by it, and returns its key. */
  taken(n?: number): Promise<string>;
  /** Takes no more jobs, lets the held ones complete, and ends its pool. */
  stop(): Promise<void>;
};

const quiet = new Logger(() => (level, message) => {
  if (level === 'error') console.error(`[held jobs] ${message}`);
});

export async function holdJobs(tasks: readonly string[], { concurrency = 1 } = {}): Promise<HeldJobs> {
  const pool = newPool({
    max: concurrency + 2,
    database: 'jobs',
    applicationName: 'fencing-lab held jobs (test)',
    onIdleError: (error) => console.error('[held jobs] idle client error:', error.message),
  });
  // As the app's runner does (lib/server/job-runner.ts): a client's own error is logged, not thrown.
  pool.on('connect', (client) =>
    client.on('error', (error) => console.error('[held jobs] client error:', error.message)),
  );
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const keys: string[] = [];
  const hold = async (_payload: unknown, helpers: { job: { id: string; key: string | null } }) => {
    keys.push(helpers.job.key ?? `id ${helpers.job.id}`);
    await released;
  };
  const runner = await run({
    pgPool: pool,
    events: new EventEmitter() as WorkerEvents,
    concurrency,
    pollInterval: 100,
    noHandleSignals: true,
    logger: quiet,
    taskList: Object.fromEntries(tasks.map((task) => [task, hold])),
  });
  return {
    keys,
    taken: (n = 1) => waitFor(() => keys[n - 1], `job ${n} of ${tasks.join(', ')} taken by the test's pool`),
    async stop() {
      const stopping = runner.stop();
      release();
      await stopping;
      await pool.end();
    },
  };
}
