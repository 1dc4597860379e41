import 'server-only';
import { LABS } from '../lib/labs/index';
import { parseStoredToken, type Token } from '../lib/model/core/token';
import type { LabInstance } from '../lib/model/lab/lab-instance';
import { getPool, type Queryable } from './pool';

export type LabRow = { table: 'protected_rows' | 'unguarded_rows'; id: number; value: string; lastToken: Token | 0 };

/** The row a lab's workers write, as it is now. */
export async function readLabRow(lab: LabInstance, db: Queryable = getPool()): Promise<LabRow | undefined> {
  const { rowId } = lab;
  const table = LABS[lab.kind].table;
  const sql =
    table === 'protected_rows'
      ? 'SELECT id, value, last_token FROM protected_rows WHERE id = $1'
      : 'SELECT id, value, last_token FROM unguarded_rows WHERE id = $1';
  const { rows } = await db.query<{ id: number; value: string; last_token: string }>(sql, [rowId]);
  const row = rows[0];
  return row ? { table, id: row.id, value: row.value, lastToken: parseStoredToken(row.last_token) } : undefined;
}
