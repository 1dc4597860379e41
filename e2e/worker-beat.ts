import pg from 'pg';
import { waitFor } from '../lib/testing/wait';
import { appDatabaseUrl } from './app-database';

/*
 * A fact that proves time passed for a frozen worker (issue 37: tests wait on facts, never a fixed
 * sleep), read from the app's database as lib/testing/remote-beat.ts reads it for the node tests
 * (which Playwright cannot load: db/pool.ts is server-only): the worker's own heartbeat, recorded by
 * the database's clock a given time after its newest freeze began. Its listener thread beats while
 * the main thread is frozen, so a spec that then finds it "still frozen" knows it ran through that time.
 */

/** Waits until `name`'s heartbeat in `lab` is later than its newest pause_started plus `pastMs`. */
export async function waitForBeatPastFreeze(lab: string, name: string, pastMs: number): Promise<void> {
  const client = new pg.Client({ connectionString: await appDatabaseUrl() });
  await client.connect();
  try {
    await waitFor(
      async () =>
        (
          await client.query(
            `SELECT 1 FROM remote_workers r
              WHERE r.lab = $1 AND r.name = $2 AND r.stopped_at IS NULL
                AND r.heartbeat_at > (SELECT max(e.at) FROM events e
                                       WHERE e.lab = $1 AND e.actor = $2 AND e.kind = 'pause_started')
                                     + make_interval(secs => $3 / 1000.0)`,
            [lab, name, pastMs],
          )
        ).rowCount,
      `a heartbeat of ${name} ${pastMs} ms past its freeze`,
      { timeoutMs: Math.max(15_000, pastMs * 4) },
    );
  } finally {
    await client.end();
  }
}
