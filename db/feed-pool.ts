import 'server-only';
import pg from 'pg';
import { databaseUrl, SESSION_OPTIONS } from './pool';

/*
 * The live feeds' own pool, apart from the actions' (db/pool.ts): however many browsers watch,
 * and however long their histories, they wait for one of these few connections, never for the
 * trainer's. Kept on globalThis because Next loads modules more than once per process.
 */

export const FEED_POOL_MAX_CLIENTS = 3;
/** How the feeds' connections are named in pg_stat_activity. */
export const FEED_POOL_APPLICATION_NAME = 'fencing-lab feeds';
const CONNECT_TIMEOUT_MS = 5_000;

type GlobalWithFeedPool = typeof globalThis & { __fencingLabFeedPool?: pg.Pool };
const holder = globalThis as GlobalWithFeedPool;

export function getFeedPool(): pg.Pool {
  if (!holder.__fencingLabFeedPool) {
    const pool = new pg.Pool({
      connectionString: databaseUrl(),
      max: FEED_POOL_MAX_CLIENTS,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      options: SESSION_OPTIONS,
      application_name: FEED_POOL_APPLICATION_NAME,
      // Idle feed connections do not keep a process (a test, a script) alive.
      allowExitOnIdle: true,
    });
    // Without a listener a server restart surfaces as an uncaughtException; the feeds report the
    // outage themselves (once), so an idle client's error needs no line of its own.
    pool.on('error', () => undefined);
    holder.__fencingLabFeedPool = pool;
  }
  return holder.__fencingLabFeedPool;
}

export async function closeFeedPool(): Promise<void> {
  const pool = holder.__fencingLabFeedPool;
  holder.__fencingLabFeedPool = undefined;
  await pool?.end();
}
