import 'server-only';
import { randomBytes } from 'node:crypto';
import { FencingError } from '../lib/model/errors';
import {
  isLabInstanceId,
  type LabInstance,
  type LabVisibility,
  privateLabIdFrom,
  privateResourceOf,
} from '../lib/model/lab-instance';
import { isLabId, type LabId } from '../lib/model/labs';
import { createProtectedRow } from './guard';
import { getPool, type Queryable, withTransaction } from './pool';

/*
 * The lab registry: which labs exist, of which kind, on which row and lease, and who owns the
 * private ones (by a hash of the owner's secret, never the secret). Labs are never deleted: a
 * closed lab keeps its history for replay, and its row stays (protected rows are never deleted).
 */

export type LabRecord = LabInstance & { ownerHash?: string; createdAt: Date; closedAt?: Date };

type LabRow = {
  id: string;
  kind: string;
  row_id: number;
  resource: string;
  visibility: LabVisibility;
  owner_hash: string | null;
  created_at: Date;
  closed_at: Date | null;
};

const LAB_COLUMNS = 'id, kind, row_id, resource, visibility, owner_hash, created_at, closed_at';

function reshapeLab(row: LabRow): LabRecord {
  if (!isLabId(row.kind)) throw new Error(`lab ${row.id} has an unknown kind ${row.kind}`);
  return {
    id: row.id,
    kind: row.kind,
    rowId: row.row_id,
    resource: row.resource,
    visibility: row.visibility,
    createdAt: row.created_at,
    ...(row.owner_hash ? { ownerHash: row.owner_hash } : {}),
    ...(row.closed_at ? { closedAt: row.closed_at } : {}),
  };
}

export async function findLab(id: string, db: Queryable = getPool()): Promise<LabRecord | undefined> {
  if (!isLabInstanceId(id)) return undefined;
  const { rows } = await db.query<LabRow>(`SELECT ${LAB_COLUMNS} FROM labs WHERE id = $1`, [id]);
  return rows[0] ? reshapeLab(rows[0]) : undefined;
}

/** Opens a private lab of the given kind on a fresh row of its own. */
export async function createPrivateLab(input: {
  kind: LabId;
  ownerHash: string;
  initialValue: string;
}): Promise<LabRecord> {
  const id = privateLabIdFrom(randomBytes(10));
  return withTransaction(async (client) => {
    let rowId: number;
    if (input.kind === 'fenced') {
      // Born at the highest token handed out so far: no earlier grant can ever write it.
      rowId = (await createProtectedRow({ value: input.initialValue }, client)).id;
    } else {
      const { rows } = await client.query<{ id: number }>(
        `INSERT INTO unguarded_rows (id, lab, value) VALUES (nextval('unguarded_row_ids'), $1, $2) RETURNING id`,
        [id, input.initialValue],
      );
      rowId = (rows[0] as { id: number }).id;
    }
    const { rows } = await client.query<LabRow>(
      `INSERT INTO labs (id, kind, row_id, resource, visibility, owner_hash)
       VALUES ($1, $2, $3, $4, 'private', $5) RETURNING ${LAB_COLUMNS}`,
      [id, input.kind, rowId, privateResourceOf(id), input.ownerHash],
    );
    return reshapeLab(rows[0] as LabRow);
  });
}

export async function listPrivateLabs(
  input: { ownerHash: string; includeClosed?: boolean },
  db: Queryable = getPool(),
): Promise<LabRecord[]> {
  const { rows } = await db.query<LabRow>(
    `SELECT ${LAB_COLUMNS} FROM labs
      WHERE visibility = 'private' AND owner_hash = $1 AND ($2 OR closed_at IS NULL)
      ORDER BY created_at DESC LIMIT 50`,
    [input.ownerHash, input.includeClosed ?? false],
  );
  return rows.map(reshapeLab);
}

export async function listOpenPrivateLabIds(db: Queryable = getPool()): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    "SELECT id FROM labs WHERE visibility = 'private' AND closed_at IS NULL",
  );
  return rows.map((row) => row.id);
}

/** Marks a private lab closed: it keeps its history and row, and takes no more commands. */
export async function closeLab(id: string, db: Queryable = getPool()): Promise<void> {
  const { rowCount } = await db.query(
    "UPDATE labs SET closed_at = clock_timestamp() WHERE id = $1 AND visibility = 'private' AND closed_at IS NULL",
    [id],
  );
  if (rowCount === 0 && !(await findLab(id, db))) throw new FencingError('invalid_input', `no lab ${id}`);
}

/** The protected rows that belong to private labs: kept off the pages everyone sees. */
export async function listPrivateRowIds(db: Queryable = getPool()): Promise<Set<number>> {
  const { rows } = await db.query<{ row_id: number }>(
    "SELECT row_id FROM labs WHERE visibility = 'private' AND kind = 'fenced'",
  );
  return new Set(rows.map((row) => row.row_id));
}
