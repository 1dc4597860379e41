import 'server-only';
import type pg from 'pg';
import { newPool } from './pool';

/*
 * The live feeds' own pool, apart from the actions' (db/pool.ts): however many browsers watch,
 * and however long their histories, they wait for one of these few connections, never for the
 * trainer's. Kept on globalThis because Next loads modules more than once per process.
 */

export const FEED_POOL_MAX_CLIENTS = 3;
/** How the feeds' connections are named in pg_stat_activity. */
export const FEED_POOL_APPLICATION_NAME = 'fencing-lab feeds';

type GlobalWithFeedPool = typeof globalThis & { __fencingLabFeedPool?: pg.Pool };
const holder = globalThis as GlobalWithFeedPool;

export function getFeedPool(): pg.Pool {
  if (!holder.__fencingLabFeedPool) {
    holder.__fencingLabFeedPool = newPool({
      max: FEED_POOL_MAX_CLIENTS,
      applicationName: FEED_POOL_APPLICATION_NAME,
      // Idle feed connections do not keep a process (a test, a script) alive.
      allowExitOnIdle: true,
      // The feeds report the outage themselves (once): an idle client's error needs no line of its own.
      onIdleError: () => undefined,
    });
  }
  return holder.__fencingLabFeedPool;
}

export async function closeFeedPool(): Promise<void> {
  const pool = holder.__fencingLabFeedPool;
  holder.__fencingLabFeedPool = undefined;
  await pool?.end();
}
