import 'server-only';
import { getPool, type Queryable } from './pool';

/**
 * How long until `at` by the database's clock, in milliseconds (0 or less once it has passed).
 * Lease expiry is judged on that clock, never on this process's.
 */
export async function msUntil(at: Date, db: Queryable = getPool()): Promise<number> {
  const { rows } = await db.query<{ remaining_ms: number }>(
    'SELECT (extract(epoch FROM $1::timestamptz - clock_timestamp()) * 1000)::float8 AS remaining_ms',
    [at],
  );
  return rows[0]?.remaining_ms ?? 0;
}
