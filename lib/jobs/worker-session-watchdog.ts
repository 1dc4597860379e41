import 'server-only';
import { endBlockingWorkerSessions, restoreChangedWorkerLines } from '../../db/worker-lines';
import { endOverdueWorkerSessions, type WorkerSessionBudget } from '../../db/worker-sessions';
import { OutageLog } from '../log/outage-log';
import { closeSingleton, singleton } from '../os/process-singletons';

/*
 * Anyone holding a worker line may open a session and SET statement_timeout = 0 (the role's own
 * limits, 0040, are user settings): this watchdog, in every app server, ends every worker session
 * over its budget once a second, with the owner's rights. A session idle in a transaction (holding
 * a lab's events lock) lasts at most about 3 s, a runaway statement about 4 s. Workers the app
 * starts never open a transaction and their statements take milliseconds.
 *
 * Within those limits a line could still hold up others: a lab's events lock held for 1.5 s, again
 * and again (issue 33, item 3). So every BLOCKING_CHECK_MS it also ends each worker line's session
 * that another role's session has waited on for longer than BLOCKING_BUDGET.waitMs, or whose
 * transaction is open longer than BLOCKING_BUDGET.transactionMs (the expiry recorder skips what is
 * locked rather than wait): the trainer's workers, the expiry recorder and a reset wait a few hundred
 * milliseconds at most. And once a second it puts
 * back the settings of a line whose person changed them (ALTER ROLE CURRENT_USER SET …).
 *
 * Started once per server process (instrumentation.ts); one timer per process
 * (lib/os/process-singletons.ts), closable.
 */

export const WORKER_SESSION_BUDGET: WorkerSessionBudget = { statementMs: 3_000, idleInTransactionMs: 2_000 };
const WATCH_EVERY_MS = 1_000;
/**
 * How often the blocking check runs, how long another session may wait on a worker line's lock, and
 * how long a worker line's transaction may stay open (a worker's own calls take milliseconds).
 */
export const BLOCKING_CHECK_MS = 100;
export const BLOCKING_BUDGET = { waitMs: 150, transactionMs: 500 };

const WATCHDOG = 'jobs.worker-session-watchdog';

export function startWorkerSessionWatchdog(): void {
  singleton(WATCHDOG, watch, stopTimers);
}

type Timers = { budget: NodeJS.Timeout; blocking: NodeJS.Timeout };

function watch(): Timers {
  const outage = new OutageLog('watchdog', "the worker sessions' watchdog");
  return {
    budget: every(
      WATCH_EVERY_MS,
      async () => {
        const ended = await endOverdueWorkerSessions(WORKER_SESSION_BUDGET);
        if (ended) console.log(`[watchdog] ended ${ended} worker session(s) over their time budget`);
        const restored = await restoreChangedWorkerLines();
        if (restored)
          console.log(`[watchdog] put back the settings of ${restored} worker line(s) their person changed`);
      },
      outage,
    ),
    blocking: every(
      BLOCKING_CHECK_MS,
      async () => {
        const ended = await endBlockingWorkerSessions(BLOCKING_BUDGET);
        if (ended)
          console.log(
            `[watchdog] ended ${ended} worker line session(s) that held up others or kept a transaction open`,
          );
      },
      outage,
    ),
  };
}

/** Runs `pass` every `ms`, never two at once; a failure is the outage log's to tell. */
function every(ms: number, pass: () => Promise<void>, outage: OutageLog): NodeJS.Timeout {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    pass()
      .then(
        () => outage.succeeded(),
        (error: unknown) => outage.failed(error),
      )
      .finally(() => {
        running = false;
      });
  }, ms);
  timer.unref();
  return timer;
}

function stopTimers(timers: Timers): void {
  clearInterval(timers.budget);
  clearInterval(timers.blocking);
}

export function stopWorkerSessionWatchdog(): void {
  void closeSingleton(WATCHDOG);
}
