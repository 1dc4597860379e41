import 'server-only';
import type pg from 'pg';
import { closeSingleton, singleton } from '../lib/os/process-singletons';
import { newPool } from './pool';

/*
 * The live feeds' own pool, apart from the actions' (db/pool.ts): however many browsers watch,
 * and however long their histories, they wait for one of these few connections, never for the
 * trainer's. One per process (lib/os/process-singletons.ts).
 */

export const FEED_POOL_MAX_CLIENTS = 3;
/** How the feeds' connections are named in pg_stat_activity. */
export const FEED_POOL_APPLICATION_NAME = 'fencing-lab feeds';

const FEED_POOL = 'db.feed-pool';

export function getFeedPool(): pg.Pool {
  return singleton(
    FEED_POOL,
    () =>
      newPool({
        max: FEED_POOL_MAX_CLIENTS,
        applicationName: FEED_POOL_APPLICATION_NAME,
        // Idle feed connections do not keep a process (a test, a script) alive.
        allowExitOnIdle: true,
        // The feeds report the outage themselves (once): an idle client's error needs no line of its own.
        onIdleError: () => undefined,
      }),
    (pool) => pool.end(),
  );
}

export const closeFeedPool = (): Promise<void> => closeSingleton(FEED_POOL);
