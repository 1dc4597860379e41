import 'server-only';
import type { LabInstance } from '../lib/model/lab-instance';
import { parseStoredToken, type Token } from '../lib/model/token';
import type { WriteResult } from '../lib/model/write-result';
import { appendEvent } from './events';
import { generationCheck } from './lab-generation';
import { getPool, type Queryable, type Session, withTransaction } from './pool';

/*
 * THE DELIBERATELY BROKEN WRITE PATHS, one per classic mistake. They write `unguarded_rows` only
 * (never protected_rows: db/only-guard-writes.test.ts enforces it), and only the broken labs call
 * them. Do not copy any of this: each function is wrong on purpose, in the way its name says.
 */

export type BrokenWrite = {
  /** The lab's id, for its history. */
  lab: string;
  /** The lab's own row in unguarded_rows. */
  rowId: number;
  value: string;
  token: Token;
  actor: string;
  /** Where a pause armed for the critical window strikes: after any check, before the write. */
  criticalWindow: () => Promise<void>;
  /** The run of the lab the writer joined: even a broken lab refuses a worker from before a reset. */
  generation?: number;
};

/** A broken write is wrong in its own way, never about resets: each UPDATE checks the generation too. */
const IN_THIS_RUN = `AND ${generationCheck(5, 6)}`;
const paramsOf = (write: BrokenWrite) => [
  write.value,
  write.token,
  write.rowId,
  String(write.token),
  write.lab,
  write.generation ?? null,
];

type Row = { last_token: string; last_token_text: string };

/** Mistake: a lease and no fencing at all. A plain UPDATE: the last writer wins, however stale. */
export async function writeWithoutFencing(write: BrokenWrite, session: Session): Promise<WriteResult> {
  await write.criticalWindow();
  return record(write, session, 'no token check', (db) =>
    db.query<Row>(
      `UPDATE unguarded_rows SET value = $1, last_token = $2, last_token_text = $4, updated_at = clock_timestamp()
        WHERE id = $3 ${IN_THIS_RUN} RETURNING last_token, last_token_text`,
      paramsOf(write),
    ),
  );
}

/** Mistake: read the token, compare it in the app, then write without the check. Not atomic. */
export async function writeReadCheckWrite(write: BrokenWrite, session: Session): Promise<WriteResult> {
  const current = await session.query<Row>('SELECT last_token, last_token_text FROM unguarded_rows WHERE id = $1', [
    write.rowId,
  ]);
  const stored = parseStoredToken(current.rows[0]?.last_token ?? '0');
  if (write.token < stored) return recordStale(write, session, stored, 'checked in the app');
  // The check passed a moment ago; by the time the UPDATE runs, it may no longer be true.
  await write.criticalWindow();
  return record(write, session, 'checked in the app, written unconditionally', (db) =>
    db.query<Row>(
      `UPDATE unguarded_rows SET value = $1, last_token = $2, last_token_text = $4, updated_at = clock_timestamp()
        WHERE id = $3 ${IN_THIS_RUN} RETURNING last_token, last_token_text`,
      paramsOf(write),
    ),
  );
}

/** Mistake: the token compared as text. Right while tokens have the same number of digits. */
export async function writeTokenAsText(write: BrokenWrite, session: Session): Promise<WriteResult> {
  await write.criticalWindow();
  return record(write, session, 'compared as text', (db) =>
    db.query<Row>(
      `UPDATE unguarded_rows SET value = $1, last_token = $2, last_token_text = $4, updated_at = clock_timestamp()
        WHERE id = $3 AND last_token_text <= $4 ${IN_THIS_RUN} RETURNING last_token, last_token_text`,
      paramsOf(write),
    ),
  );
}

/**
 * The right statement on the lab's own row, for labs whose mistake is elsewhere: the per-process
 * counter (the token itself is wrong) and the bypass lab's regular path.
 */
export async function writeFencedUnguarded(write: BrokenWrite, session: Session): Promise<WriteResult> {
  await write.criticalWindow();
  return record(write, session, 'fenced', (db) =>
    db.query<Row>(
      `UPDATE unguarded_rows SET value = $1, last_token = $2, last_token_text = $4, updated_at = clock_timestamp()
        WHERE id = $3 AND last_token <= $2 ${IN_THIS_RUN} RETURNING last_token, last_token_text`,
      paramsOf(write),
    ),
  );
}

/** Mistake: a second code path (here, catching up on an overdue write) that skips the guard. */
export async function writeBypassingGuard(write: BrokenWrite, session: Session): Promise<WriteResult> {
  await write.criticalWindow();
  return record(write, session, 'catch-up path, bypasses the guard', (db) =>
    db.query<Row>(
      `UPDATE unguarded_rows SET value = $1, last_token = $2, last_token_text = $4, updated_at = clock_timestamp()
        WHERE id = $3 ${IN_THIS_RUN} RETURNING last_token, last_token_text`,
      paramsOf(write),
    ),
  );
}

async function record(
  write: BrokenWrite,
  session: Session,
  path: string,
  statement: (db: Queryable) => Promise<{ rows: Row[] }>,
): Promise<WriteResult> {
  return withTransaction(async (client) => {
    const written = (await statement(client)).rows[0];
    if (!written) {
      const current = await client.query<Row>('SELECT last_token FROM unguarded_rows WHERE id = $1', [write.rowId]);
      const stored = parseStoredToken(current.rows[0]?.last_token ?? '0');
      await appendOutcome(client, write, { outcome: 'stale', storedToken: stored, path });
      return { outcome: 'stale', rowId: write.rowId, presentedToken: write.token, storedToken: stored };
    }
    await appendOutcome(client, write, { outcome: 'accepted', path });
    return { outcome: 'accepted', rowId: write.rowId, value: write.value, token: write.token };
  }, session);
}

async function recordStale(
  write: BrokenWrite,
  session: Session,
  stored: Token | 0,
  path: string,
): Promise<WriteResult> {
  await appendOutcome(session, write, { outcome: 'stale', storedToken: stored, path });
  return { outcome: 'stale', rowId: write.rowId, presentedToken: write.token, storedToken: stored };
}

async function appendOutcome(
  db: Queryable,
  write: BrokenWrite,
  outcome: { outcome: 'accepted' | 'stale'; storedToken?: Token | 0; path: string },
): Promise<void> {
  await appendEvent(
    db,
    {
      lab: write.lab,
      actor: write.actor,
      kind: outcome.outcome === 'accepted' ? 'write_accepted' : 'write_rejected',
      rowId: write.rowId,
      token: write.token,
      ...(outcome.storedToken === undefined ? {} : { storedToken: outcome.storedToken }),
      outcome: outcome.outcome,
      detail: { value: write.value, table: 'unguarded_rows', path: outcome.path },
    },
    { generation: write.generation },
  );
}

/** Puts a broken lab's row back to its initial state (and restages the text lab's token counter). */
export async function resetUnguardedRow(lab: LabInstance, value: string, db: Queryable = getPool()): Promise<void> {
  if (lab.kind === 'fenced') throw new Error(`${lab.id} is not a broken lab`);
  await db.query(
    `INSERT INTO unguarded_rows (id, lab, value) VALUES ($1, $2, $3)
     ON CONFLICT (id) DO UPDATE SET value = EXCLUDED.value, last_token = 0, last_token_text = '0',
                                    updated_at = clock_timestamp()`,
    [lab.rowId, lab.id, value],
  );
  if (lab.kind === 'token-as-text') await db.query('UPDATE labs SET text_epoch = 8 WHERE id = $1', [lab.id]);
}
