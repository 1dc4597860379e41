import 'server-only';
import { deleteExpiredLabHistories } from '../../db/labs';
import { deleteDeadTrainerSessions } from '../../db/trainer-sessions';
import { singleton } from '../os/process-singletons';

/*
 * The retention sweep: a closed private lab's history (events, remote workers, a broken lab's row,
 * a your-guard lab's attempts, and its guard's schema and role if closing left them) is deleted FENCING_LAB_RETENTION_HOURS (24) after it closed. Protected rows and the token
 * sequence are never touched (db/labs.ts deleteExpiredLabHistories). Dead trainer sessions go too.
 * Started once per server
 * process (instrumentation.ts); one timer per process (lib/os/process-singletons.ts), closable.
 */

const DEFAULT_RETENTION_HOURS = 24;
const SWEEP_EVERY_MS = 10 * 60_000;
const FIRST_SWEEP_AFTER_MS = 5_000;

/** How long a closed private lab's history is kept: FENCING_LAB_RETENTION_HOURS (a positive number), or 24 h. */
export function retentionMs(): number {
  const raw = process.env.FENCING_LAB_RETENTION_HOURS;
  const hours = Number(raw);
  return (raw && Number.isFinite(hours) && hours > 0 ? hours : DEFAULT_RETENTION_HOURS) * 3_600_000;
}

/** Runs the sweep once; returns the ids of the labs whose history it deleted. */
async function sweepClosedLabHistories(): Promise<string[]> {
  const swept = await deleteExpiredLabHistories({ retentionMs: retentionMs() });
  if (swept.length) console.log(`[labs] deleted the history of ${swept.length} private labs closed long ago`);
  // Expired or ended trainer sessions can never count again: no need to keep them.
  await deleteDeadTrainerSessions();
  return swept;
}

type RetentionTimer = { timer: NodeJS.Timeout; first: NodeJS.Timeout };

/** Sweeps every 10 minutes from now on (the first time shortly after start). Idempotent. */
export function startRetentionSweep(): void {
  singleton('jobs.retention', startTimers, ({ timer, first }) => {
    clearTimeout(first);
    clearInterval(timer);
  });
}

function startTimers(): RetentionTimer {
  let running = false;
  const sweep = () => {
    if (running) return;
    running = true;
    sweepClosedLabHistories()
      // The database may be away (restarting): the next sweep tries again.
      .catch((error: unknown) => console.error('[labs] retention sweep failed:', (error as Error).message))
      .finally(() => {
        running = false;
      });
  };
  const first = setTimeout(sweep, FIRST_SWEEP_AFTER_MS);
  const timer = setInterval(sweep, SWEEP_EVERY_MS);
  first.unref();
  timer.unref();
  return { timer, first };
}
