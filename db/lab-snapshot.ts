import 'server-only';
import { LABS } from '../lib/labs/index';
import { parseStoredToken, parseToken } from '../lib/model/core/token';
import type { LabSnapshot } from '../lib/model/core/wire';
import type { LabInstance } from '../lib/model/lab/lab-instance';
import { getPool, type Queryable } from './pool';

/**
 * The lab's row and lease as they are now, with the database's clock, and the walkthrough step the
 * trainer shows on its current run (db/shown-step.ts), in one round trip.
 */
export async function readLabSnapshot(
  lab: LabInstance,
  db: Queryable = getPool(),
): Promise<Omit<LabSnapshot, 'workers'>> {
  const { rowId, resource } = lab;
  const table = LABS[lab.kind].table;
  const rowSql =
    table === 'protected_rows'
      ? 'SELECT value, last_token, updated_at FROM protected_rows WHERE id = $1'
      : 'SELECT value, last_token, updated_at FROM unguarded_rows WHERE id = $1';
  const { rows } = await db.query<{
    db_now: Date;
    value: string | null;
    last_token: string | null;
    updated_at: Date | null;
    holder: string | null;
    token: string | null;
    acquired_at: Date | null;
    expires_at: Date | null;
    shown_step: number | null;
  }>(
    `SELECT clock_timestamp() AS db_now, r.value, r.last_token, r.updated_at,
            l.holder, l.token, l.acquired_at, l.expires_at,
            CASE WHEN lb.shown_step_generation = lb.generation THEN lb.shown_step END AS shown_step
       FROM (SELECT 1) one
       LEFT JOIN (${rowSql}) r ON true
       LEFT JOIN leases l ON l.resource = $2
       LEFT JOIN labs lb ON lb.id = $3`,
    [rowId, resource, lab.id],
  );
  const found = rows[0];
  if (!found) throw new Error('the snapshot query returned nothing');
  return {
    lab: lab.id,
    dbNow: found.db_now.getTime(),
    ...(found.value !== null && found.last_token !== null && found.updated_at
      ? {
          row: {
            table,
            id: rowId,
            value: found.value,
            lastToken: parseStoredToken(found.last_token),
            updatedAt: found.updated_at.getTime(),
          },
        }
      : {}),
    ...(found.holder !== null && found.token !== null && found.acquired_at && found.expires_at
      ? {
          lease: {
            holder: found.holder,
            token: parseToken(found.token),
            acquiredAt: found.acquired_at.getTime(),
            expiresAt: found.expires_at.getTime(),
          },
        }
      : {}),
    ...(found.shown_step === null ? {} : { walkthroughStep: found.shown_step }),
  };
}
