import 'server-only';
import { FencingError } from '../lib/model/core/errors';
import { holderSchema, parseInput, rowIdSchema, rowValueSchema } from '../lib/model/core/inputs';
import { parseStoredToken, requireToken, type Token } from '../lib/model/core/token';
import type { WriteResult } from '../lib/model/core/write-result';
import { getPool, type Queryable, type Session, toFencingError } from './pool';
import { identityParams, type WorkerIdentity } from './worker-identity';

/*
 * THE fenced write: the only module that writes `protected_rows` (db/fenced-write-only-writer.test.ts fails if
 * any other source file does), through the database's fenced-write functions (0015): neither the app role
 * nor the worker role may write the table itself. Policy `<=`: a holder may write several times under its token,
 * and an identical retry is accepted again, but an older token never gets through. The database
 * enforces the same rule for writes that bypass this module (0003_protected_rows_guard.sql).
 */

export type ProtectedRow = { id: number; value: string; lastToken: Token | 0; updatedAt: Date };

type ProtectedRowRecord = { id: number; value: string; last_token: string; updated_at: Date };

function reshapeRow(row: ProtectedRowRecord): ProtectedRow {
  return { id: row.id, value: row.value, lastToken: parseStoredToken(row.last_token), updatedAt: row.updated_at };
}

export type FencedWriteInput = {
  rowId: unknown;
  value: unknown;
  token: unknown;
  /** Who presents the token: recorded with the outcome in `events`. */
  actor: unknown;
  /** The lab whose history records the outcome. */
  lab: string;
  /** The run of the lab the writer joined (db/lab-generation.ts); workers always give it. */
  generation?: number;
  /**
   * A worker's identity (db/worker-identity.ts): the write then goes through the worker's own
   * function, on its lab's row, under its own name and run, whatever `rowId`, `actor` and `generation` say.
   */
  as?: WorkerIdentity;
};

/**
 * Writes `value` to a protected row if `token` is not older than the row's `last_token` and, for a
 * lab's row, was granted for that lab's lease. Returns `accepted` or `stale`; throws `unknown_row`,
 * `invalid_input`, `token_not_issued` or `token_not_granted`. The decision is the seed's statement
 * with `<=` (db/functions/fl_may_write.sql), one atomic UPDATE in the database's fenced-write function
 * (db/functions/fl_fenced_write.sql); the outcome is recorded as an event in the same transaction.
 */
export async function fencedWrite(input: FencedWriteInput, session?: Session): Promise<WriteResult> {
  const rowId = parseInput(rowIdSchema, input.rowId);
  const value = parseInput(rowValueSchema, input.value);
  const token = requireToken(input.token);
  const actor = parseInput(holderSchema, input.actor);
  const { lab } = input;

  const { rows } = await (session ?? getPool())
    .query<{ outcome: string; stored_token: string | null; row_id?: number }>(
      input.as
        ? 'SELECT * FROM worker_fenced_write($1, $2, $3, $4, $5)'
        : 'SELECT * FROM fl_fenced_write($1, $2, $3, $4, $5, $6)',
      input.as
        ? [...identityParams(input.as), value, token]
        : [rowId, value, token, actor, lab, input.generation ?? null],
    )
    .catch((error: unknown) => {
      throw toFencingError(error);
    });
  const row = rows[0];
  const writtenRow = row?.row_id ?? rowId;
  if (!row || row.outcome === 'unknown_row') {
    throw new FencingError('unknown_row', `there is no protected row ${writtenRow}`);
  }
  if (row.outcome === 'accepted') return { outcome: 'accepted', rowId: writtenRow, value, token };
  return {
    outcome: 'stale',
    rowId: writtenRow,
    presentedToken: token,
    storedToken: parseStoredToken(row.stored_token ?? '0'),
  };
}

/**
 * Puts a lab's row back to `value` when the lab is reset, under a freshly minted token: last_token
 * only ever goes up, so no token handed out before the reset can write the row again.
 */
export async function resetProtectedRow(
  input: { id: unknown; value: unknown },
  db: Queryable = getPool(),
): Promise<ProtectedRow> {
  const id = parseInput(rowIdSchema, input.id);
  const value = parseInput(rowValueSchema, input.value);
  const { rows } = await db.query<ProtectedRowRecord>('SELECT * FROM fl_reset_protected_row($1, $2)', [id, value]);
  return reshapeRow(rows[0] as ProtectedRowRecord);
}

/** Creates a new row with the next free id (from 1001; lower ids are for named rows). */
export async function createProtectedRow(input: { value: unknown }, db: Queryable = getPool()): Promise<ProtectedRow> {
  const value = parseInput(rowValueSchema, input.value);
  const { rows } = await db.query<ProtectedRowRecord>('SELECT * FROM fl_create_protected_row($1)', [value]);
  return reshapeRow(rows[0] as ProtectedRowRecord);
}

export async function readProtectedRow(id: number, db: Queryable = getPool()): Promise<ProtectedRow | undefined> {
  const { rows } = await db.query<ProtectedRowRecord>(
    'SELECT id, value, last_token, updated_at FROM protected_rows WHERE id = $1',
    [id],
  );
  return rows[0] ? reshapeRow(rows[0]) : undefined;
}

/** The protected rows everyone may see: none of a private lab's (left out before the limit). */
export async function listSharedProtectedRows(db: Queryable = getPool()): Promise<ProtectedRow[]> {
  const { rows } = await db.query<ProtectedRowRecord>(
    `SELECT id, value, last_token, updated_at FROM protected_rows p
      WHERE NOT EXISTS (SELECT 1 FROM labs b WHERE b.row_id = p.id AND b.visibility = 'private'
                          AND b.kind IN (SELECT id FROM lab_kinds WHERE row_table = 'protected_rows'))
      ORDER BY id LIMIT 200`,
  );
  return rows.map(reshapeRow);
}
