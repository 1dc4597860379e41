import 'server-only';
import { endOverdueWorkerSessions, type WorkerSessionBudget } from '../../db/worker-sessions';
import { OutageLog } from '../log/outage-log';
import { closeSingleton, singleton } from '../os/process-singletons';

/*
 * Anyone holding the worker line may open a session and SET statement_timeout = 0 (the role's own
 * limits, 0040, are user settings): this watchdog, in every app server, ends every worker session
 * over its budget once a second, with the owner's rights. A session idle in a transaction (holding
 * a lab's events lock) lasts at most about 3 s, a runaway statement about 4 s. Workers the app
 * starts never open a transaction and their statements take milliseconds. Started once per server
 * process (instrumentation.ts); one timer per process (lib/os/process-singletons.ts), closable.
 */

export const WORKER_SESSION_BUDGET: WorkerSessionBudget = { statementMs: 3_000, idleInTransactionMs: 2_000 };
const WATCH_EVERY_MS = 1_000;

const WATCHDOG = 'jobs.worker-session-watchdog';

export function startWorkerSessionWatchdog(): void {
  singleton(WATCHDOG, watch, clearInterval);
}

function watch(): NodeJS.Timeout {
  const outage = new OutageLog('watchdog', "the worker sessions' watchdog");
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    endOverdueWorkerSessions(WORKER_SESSION_BUDGET)
      .then(
        (ended) => {
          outage.succeeded();
          if (ended) console.log(`[watchdog] ended ${ended} worker session(s) over their time budget`);
        },
        (error: unknown) => outage.failed(error),
      )
      .finally(() => {
        running = false;
      });
  }, WATCH_EVERY_MS);
  timer.unref();
  return timer;
}

export function stopWorkerSessionWatchdog(): void {
  void closeSingleton(WATCHDOG);
}
