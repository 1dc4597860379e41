import 'server-only';
import { closeOrphanedCellLabs } from '../sweep/cell-labs';

/*
 * A sweep's run labs are closed as each run ends. When the process running the sweep dies mid-sweep
 * (an app server killed, a command line that could not clean up), its labs would stay open, holding
 * places among the room's open private labs (FENCING_LAB_MAX_PRIVATE_LABS) until the idle close. At
 * its start, a server closes those whose process is gone (lib/sweep/cell-labs.ts), as it records the end of orphaned workers.
 */

const RETRY_MS = 2_000;

/** Once per server start (instrumentation.ts), as soon as the database answers. */
export function closeOrphanedSweepLabsOnceUp(): void {
  const attempt = () => {
    closeOrphanedCellLabs().then(
      (closed) => {
        if (closed.length) console.log(`[sweep] closed ${closed.length} run labs left open by a sweep that died`);
      },
      () => setTimeout(attempt, RETRY_MS).unref(),
    );
  };
  attempt();
}
