import 'server-only';
import { appendEvent } from '../../db/events';
import { getPool } from '../../db/pool';
import { listUnendedLocalWorkers } from '../../db/worker-lives';
import { type ProcessRun, processRunIsAlive } from '../os/processes';

/*
 * Worker processes end with the server that started them, however it ends (their lifeline pipe
 * reads end of file: lib/worker/listener.ts). When it ends without a word (kill -9, a crash),
 * nobody records their end, and their lanes would run on forever while no process writes. Each
 * worker a server starts stamps its start with that server's run (`detail.server`, lib/supervisor/
 * worker-process.ts); a server that starts records `worker_stopped` for every worker whose history says it runs but whose server's
 * run is gone.
 */

function isProcessRun(value: unknown): value is ProcessRun {
  const run = value as Partial<ProcessRun> | null;
  return (
    typeof run === 'object' &&
    run !== null &&
    typeof run.pid === 'number' &&
    typeof run.startTicks === 'string' &&
    typeof run.bootId === 'string'
  );
}

/** Records the end of every worker whose server is gone; returns how many. */
export async function recordOrphanedWorkers(): Promise<number> {
  let ended = 0;
  for (const worker of await listUnendedLocalWorkers()) {
    const server = worker.detail.server;
    // A start recorded before servers stamped it, or by a server still running: not ours to end.
    if (!isProcessRun(server) || processRunIsAlive(server)) continue;
    await appendEvent(getPool(), {
      lab: worker.lab,
      actor: worker.actor,
      kind: 'worker_stopped',
      resource: worker.resource ?? undefined,
      detail: {
        workerId: worker.detail.workerId,
        reason: 'the server that ran it stopped, and the process with it',
      },
    });
    ended++;
  }
  if (ended) console.log(`[supervisor] recorded the end of ${ended} workers whose server had stopped`);
  return ended;
}

const RETRY_MS = 2_000;

/** Once per server start (instrumentation.ts), as soon as the database answers. */
export function recordOrphanedWorkersOnceUp(): void {
  const attempt = () => {
    recordOrphanedWorkers().catch(() => setTimeout(attempt, RETRY_MS).unref()); // not up yet: try again
  };
  attempt();
}
