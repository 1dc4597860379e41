import 'server-only';
import { deleteExpiredLabHistories } from '../../db/labs';
import { deleteDeadTrainerSessions } from '../../db/trainer-sessions';
import { roomSettings } from '../config/room-settings';
import { singleton } from '../os/process-singletons';

/*
 * The history pruner: a closed private lab's history (events, remote workers, a broken lab's row,
 * a your-guard lab's attempts, and its guard's schema and role if closing left them) is deleted FENCING_LAB_RETENTION_HOURS (24) after it closed. Protected rows and the token
 * sequence are never touched (db/labs.ts deleteExpiredLabHistories). Dead trainer sessions go too.
 * Started once per server
 * process (instrumentation.ts); one timer per process (lib/os/process-singletons.ts), closable.
 */

const PRUNE_EVERY_MS = 10 * 60_000;
const FIRST_PRUNE_AFTER_MS = 5_000;

/** How long a closed private lab's history is kept: FENCING_LAB_RETENTION_HOURS. */
export function retentionMs(): number {
  return roomSettings().retentionHours * 3_600_000;
}

/** Prunes once; returns the ids of the labs whose history it deleted. */
async function pruneClosedLabHistories(): Promise<string[]> {
  const pruned = await deleteExpiredLabHistories({ retentionMs: retentionMs() });
  if (pruned.length) console.log(`[labs] deleted the history of ${pruned.length} private labs closed long ago`);
  // Expired or ended trainer sessions can never count again: no need to keep them.
  await deleteDeadTrainerSessions();
  return pruned;
}

type PrunerTimers = { timer: NodeJS.Timeout; first: NodeJS.Timeout };

/** Prunes every 10 minutes from now on (the first time shortly after start). Idempotent. */
export function startHistoryPruner(): void {
  singleton('jobs.history-pruner', startTimers, ({ timer, first }) => {
    clearTimeout(first);
    clearInterval(timer);
  });
}

function startTimers(): PrunerTimers {
  let running = false;
  const prune = () => {
    if (running) return;
    running = true;
    pruneClosedLabHistories()
      // The database may be away (restarting): the next pass tries again.
      .catch((error: unknown) => console.error('[labs] history pruning failed:', (error as Error).message))
      .finally(() => {
        running = false;
      });
  };
  const first = setTimeout(prune, FIRST_PRUNE_AFTER_MS);
  const timer = setInterval(prune, PRUNE_EVERY_MS);
  first.unref();
  timer.unref();
  return { timer, first };
}
