import 'server-only';
import { FencingError } from '../lib/model/errors';
import { DEFAULT_LAB } from '../lib/model/events';
import { holderSchema, parseInput, rowIdSchema, rowValueSchema } from '../lib/model/inputs';
import { parseStoredToken, parseToken, requireToken, type Token } from '../lib/model/token';
import type { WriteResult } from '../lib/model/write-result';
import { appendEvent } from './events';
import { generationCheck } from './lab-generation';
import { getPool, type Queryable, type Session, withTransaction } from './pool';

/*
 * THE guard: the only module that writes `protected_rows` (db/only-guard-writes.test.ts fails if
 * any other source file does). Policy `<=`: a holder may write several times under its token,
 * and an identical retry is accepted again, but an older token never gets through. The database
 * enforces the same rule for writes that bypass this module (0003_protected_rows_guard.sql).
 */

// The seed's statement with `<=`: the check and the write are one atomic statement. Under READ
// COMMITTED, a write that waits on a newer writer's row lock re-checks this WHERE after that commit.
// A worker's write also names the run of the lab it joined: refused (lab_reset) after a reset.
const FENCED_UPDATE = `
  UPDATE protected_rows
     SET value = $1, last_token = $2, updated_at = clock_timestamp()
   WHERE id = $3 AND last_token <= $2 AND ${generationCheck(4, 5)}
  RETURNING last_token`;

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
  lab?: string;
  /** The run of the lab the writer joined (db/lab-generation.ts); workers always give it. */
  generation?: number;
};

/**
 * Writes `value` to a protected row if `token` is not older than the row's `last_token`.
 * Returns `accepted` or `stale`; throws `unknown_row`, `invalid_input` or `token_not_issued`.
 * The outcome is recorded as an event in the same transaction as the write.
 */
export async function fencedWrite(input: FencedWriteInput, session?: Session): Promise<WriteResult> {
  const rowId = parseInput(rowIdSchema, input.rowId);
  const value = parseInput(rowValueSchema, input.value);
  const token = requireToken(input.token);
  const actor = parseInput(holderSchema, input.actor);
  const lab = input.lab ?? DEFAULT_LAB;

  return withTransaction(async (client) => {
    const updated = await client
      .query<{ last_token: string }>(FENCED_UPDATE, [value, token, rowId, lab, input.generation ?? null])
      .catch(explain);
    let result: WriteResult;
    const written = updated.rows[0];
    if (written) {
      result = { outcome: 'accepted', rowId, value, token: parseToken(written.last_token) };
    } else {
      // Only to explain the rejection: the decision was made atomically above. A fresh statement
      // sees the newer commit that won, never an older snapshot.
      const stored = await client.query<{ last_token: string }>('SELECT last_token FROM protected_rows WHERE id = $1', [
        rowId,
      ]);
      const row = stored.rows[0];
      if (!row) throw new FencingError('unknown_row', `there is no protected row ${rowId}`);
      result = { outcome: 'stale', rowId, presentedToken: token, storedToken: parseStoredToken(row.last_token) };
    }
    await appendEvent(
      client,
      {
        lab,
        actor,
        kind: result.outcome === 'accepted' ? 'write_accepted' : 'write_rejected',
        rowId,
        token,
        ...(result.outcome === 'stale' ? { storedToken: result.storedToken } : {}),
        outcome: result.outcome,
        detail: { value },
      },
      { generation: input.generation },
    );
    return result;
  }, session);
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
  const { rows } = await db.query<ProtectedRowRecord>(
    `INSERT INTO protected_rows (id, value) VALUES ($1, $2)
     ON CONFLICT (id) DO UPDATE
       SET value = EXCLUDED.value, last_token = nextval('write_epoch'), updated_at = clock_timestamp()
     RETURNING id, value, last_token, updated_at`,
    [id, value],
  );
  return reshapeRow(rows[0] as ProtectedRowRecord);
}

/** Creates a new row with the next free id (from 1001; lower ids are for named rows). */
export async function createProtectedRow(input: { value: unknown }, db: Queryable = getPool()): Promise<ProtectedRow> {
  const value = parseInput(rowValueSchema, input.value);
  const { rows } = await db.query<ProtectedRowRecord>(
    'INSERT INTO protected_rows (value) VALUES ($1) RETURNING id, value, last_token, updated_at',
    [value],
  );
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
      WHERE NOT EXISTS (SELECT 1 FROM labs b WHERE b.row_id = p.id AND b.kind = 'fenced' AND b.visibility = 'private')
      ORDER BY id LIMIT 200`,
  );
  return rows.map(reshapeRow);
}

function explain(error: unknown): never {
  if ((error as { code?: string }).code === 'FL003') {
    throw new FencingError('token_not_issued', 'that token was never issued by the write_epoch sequence', {
      cause: error,
    });
  }
  throw error;
}
