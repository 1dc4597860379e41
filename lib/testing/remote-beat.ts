import { getPool } from '../../db/pool';
import { REMOTE_HEARTBEAT_FRESH_MS } from '../../db/remote-workers';
import { waitFor } from './wait';

/*
 * A fact that proves time passed for a worker (issue 37: tests wait on facts, never a fixed sleep):
 * its own heartbeat, recorded by the database's clock a given time after a moment of its run (a
 * freeze's start, say). Every worker beats from its listener thread, which runs while the main
 * thread is frozen (lib/worker/listener.ts), a worker this server started as much as a remote one.
 * A test that then asserts "nothing else came from it" knows the worker ran through that time,
 * however slow the machine.
 */

/** Waits until `name`'s heartbeat in `lab` is later than `sinceMs` (epoch ms, an event's `at`) plus `pastMs`. */
export async function beatAfter(lab: string, name: string, sinceMs: number, pastMs: number): Promise<void> {
  const after = new Date(sinceMs + pastMs);
  await waitFor(
    async () =>
      (
        await getPool().query(
          'SELECT 1 FROM remote_workers WHERE lab = $1 AND name = $2 AND stopped_at IS NULL AND heartbeat_at > $3',
          [lab, name, after],
        )
      ).rowCount,
    `a heartbeat of ${name} after ${after.toISOString()} (${pastMs} ms past the moment)`,
    { timeoutMs: Math.max(15_000, pastMs * 4) },
  );
}

/** Waits until `name`'s heartbeat in `lab` is later than `sinceMs` plus the heartbeat window. */
export async function remoteBeatPastWindow(lab: string, name: string, sinceMs: number): Promise<void> {
  await beatAfter(lab, name, sinceMs, REMOTE_HEARTBEAT_FRESH_MS + 500);
}
