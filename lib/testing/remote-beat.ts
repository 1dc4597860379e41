import { getPool } from '../../db/pool';
import { REMOTE_HEARTBEAT_FRESH_MS } from '../../db/remote-workers';
import { waitFor } from './wait';

/*
 * A fact that proves time passed for a remote worker (issue 37: tests wait on facts, never a fixed
 * sleep): its own heartbeat, recorded by the database's clock more than the heartbeat window after
 * a moment of its run (a freeze's start, say). A test that then asserts "nothing else came from it"
 * knows the worker ran through that window, however slow the machine.
 */

/** Waits until `name`'s heartbeat in `lab` is later than `sinceMs` (epoch ms, an event's `at`) plus the heartbeat window. */
export async function remoteBeatPastWindow(lab: string, name: string, sinceMs: number): Promise<void> {
  const after = new Date(sinceMs + REMOTE_HEARTBEAT_FRESH_MS + 500);
  await waitFor(
    async () =>
      (
        await getPool().query(
          'SELECT 1 FROM remote_workers WHERE lab = $1 AND name = $2 AND stopped_at IS NULL AND heartbeat_at > $3',
          [lab, name, after],
        )
      ).rowCount,
    `a heartbeat of ${name} after ${after.toISOString()} (the heartbeat window past the moment)`,
    { timeoutMs: REMOTE_HEARTBEAT_FRESH_MS * 4 },
  );
}
