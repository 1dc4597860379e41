import 'server-only';
import { requireToken } from '../lib/model/core/token';
import { type Session, toFencingError } from './pool';
import { identityParams, type WorkerIdentity } from './worker-identity';

/** What the database's clock says of a worker's lease: whether it still runs, and until when. */
export type LeaseByDatabaseClock = {
  holding: boolean;
  /** When the lease with that token ends (or ended), by the database's clock; absent if it is not this worker's. */
  expiresAt?: Date;
  /** Who holds the lease now, when it is no longer this worker's. */
  heldBy?: string;
};

/**
 * Asks the database, on its own clock, whether this worker's lease with `token` still runs
 * (worker_lease_by_database_clock, 0032_lease_judged_by_database_clock.sql): the judgment a worker whose own
 * clock may drift makes before it writes. `holding: false` when the lease ran out or is another's.
 */
export async function readLeaseByDatabaseClock(
  request: { as: WorkerIdentity; token: unknown },
  session: Session,
): Promise<LeaseByDatabaseClock> {
  const token = requireToken(request.token);
  const { rows } = await session
    .query<{ holding: boolean; expires_at: Date | null; held_by: string | null }>(
      'SELECT * FROM worker_lease_by_database_clock($1, $2, $3, $4)',
      [...identityParams(request.as), token],
    )
    .catch((error: unknown) => {
      throw toFencingError(error);
    });
  const row = rows[0];
  return {
    holding: row?.holding === true,
    ...(row?.expires_at ? { expiresAt: row.expires_at } : row?.held_by ? { heldBy: row.held_by } : {}),
  };
}
