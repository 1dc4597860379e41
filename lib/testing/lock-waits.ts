import { getPool, type Queryable } from '../../db/pool';
import { waitFor } from './wait';

/*
 * Lock waits as PostgreSQL records them (pg_blocking_pids), for tests that race two sessions: the
 * next step waits for the database to show one session queued behind another, not for a time in
 * which it would have queued.
 */

/** The backend process of a connection's session. */
export async function backendPid(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return rows[0]?.pid as number;
}

/** A session waiting on a lock that `holderPid`'s session holds, right now, as `observer` sees it. */
export async function sessionBlockedBy(
  holderPid: number,
  observer: Queryable = getPool(),
): Promise<number | undefined> {
  const { rows } = await observer.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))',
    [holderPid],
  );
  return rows[0]?.pid;
}

/** Waits until a session waits on a lock that `holderPid`'s session holds; returns that session's pid. */
export function waitForBlockedBy(holderPid: number, what: string, observer: Queryable = getPool()): Promise<number> {
  return waitFor(() => sessionBlockedBy(holderPid, observer), what);
}
