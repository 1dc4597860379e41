import 'server-only';
import { writesProtectedRows } from '../lib/labs/traits';
import { parseStoredToken, type Token } from '../lib/model/core/token';
import type { WriteResult } from '../lib/model/core/write-result';
import type { LabInstance } from '../lib/model/lab/lab-instance';
import { getPool, type Queryable, type Session, toFencingError } from './pool';
import { identityParams, type WorkerIdentity } from './worker-identity';

/*
 * THE DELIBERATELY BROKEN WRITE PATHS, one per classic mistake. They write `unguarded_rows` only
 * (never protected_rows: db/fenced-write-only-writer.test.ts enforces it), and only the broken labs call
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
  /** A worker's identity: its own lab's write, on its own row, under its own name and run. */
  as?: WorkerIdentity;
};

/*
 * Each mistake's statement is in the database (db/functions/fl_broken_write.sql), which lets each
 * lab make only the mistakes its kind lists (lab_kind_writes), on its own row: 'plain' (no token check), 'text'
 * (compared as text), 'fenced' (the right statement, for labs whose mistake is elsewhere), and
 * 'checked-stale' (read-check-write's refusal made in the app). A broken write is wrong in its own
 * way, never about resets: the generation is checked too.
 */
type Mode = 'plain' | 'text' | 'fenced' | 'checked-stale';

/** Mistake: a lease and no fencing at all. A plain UPDATE: the last writer wins, however stale. */
export async function writeWithoutFencing(write: BrokenWrite, session: Session): Promise<WriteResult> {
  await write.criticalWindow();
  return brokenWrite(write, session, 'plain');
}

/** Mistake: read the token, compare it in the app, then write without the check. Not atomic. */
export async function writeReadCheckWrite(write: BrokenWrite, session: Session): Promise<WriteResult> {
  const { rows } = await session
    .query<{ token: string }>(
      write.as
        ? 'SELECT worker_read_own_token($1, $2, $3) AS token'
        : 'SELECT fl_read_unguarded_token($1, $2) AS token',
      write.as ? identityParams(write.as) : [write.lab, write.rowId],
    )
    .catch((error: unknown) => {
      throw toFencingError(error);
    });
  const stored = parseStoredToken(rows[0]?.token ?? '0');
  if (write.token < stored) return brokenWrite(write, session, 'checked-stale');
  // The check passed a moment ago; by the time the UPDATE runs, it may no longer be true.
  await write.criticalWindow();
  return brokenWrite(write, session, 'plain');
}

/** Mistake: the token compared as text. Right while tokens have the same number of digits. */
export async function writeTokenAsText(write: BrokenWrite, session: Session): Promise<WriteResult> {
  await write.criticalWindow();
  return brokenWrite(write, session, 'text');
}

/**
 * The right statement on the lab's own row, for labs whose mistake is elsewhere: the per-process
 * counter (the token itself is wrong) and the bypass lab's regular path.
 */
export async function writeFencedUnguarded(write: BrokenWrite, session: Session): Promise<WriteResult> {
  await write.criticalWindow();
  return brokenWrite(write, session, 'fenced');
}

/** Mistake: a second code path (here, catching up on an overdue write) that skips the fenced write. */
export async function writeBypassingFence(write: BrokenWrite, session: Session): Promise<WriteResult> {
  await write.criticalWindow();
  return brokenWrite(write, session, 'plain');
}

/** The write and its outcome's event, in one statement (so one transaction). */
async function brokenWrite(write: BrokenWrite, session: Session, mode: Mode): Promise<WriteResult> {
  const { rows } = await session
    .query<{ outcome: string; stored_token: string | null }>(
      write.as
        ? 'SELECT * FROM worker_broken_write($1, $2, $3, $4, $5, $6)'
        : 'SELECT * FROM fl_broken_write($1, $2, $3, $4, $5, $6, $7)',
      write.as
        ? [...identityParams(write.as), mode, write.value, write.token]
        : [write.lab, write.rowId, mode, write.value, write.token, write.actor, write.generation ?? null],
    )
    .catch((error: unknown) => {
      throw toFencingError(error);
    });
  const row = rows[0];
  if (row?.outcome === 'accepted') {
    return { outcome: 'accepted', rowId: write.rowId, value: write.value, token: write.token };
  }
  return {
    outcome: 'stale',
    rowId: write.rowId,
    presentedToken: write.token,
    storedToken: parseStoredToken(row?.stored_token ?? '0'),
  };
}

/** Puts a broken lab's row back to its initial state (and restages the text lab's token counter). */
export async function resetUnguardedRow(lab: LabInstance, value: string, db: Queryable = getPool()): Promise<void> {
  if (writesProtectedRows(lab.kind)) throw new Error(`${lab.id} is not a broken lab`);
  await db.query('SELECT fl_reset_unguarded_row($1, $2)', [lab.id, value]);
}
