import 'server-only';
import { parseStoredToken, type Token } from '../lib/model/core/token';
import type { WriteResult } from '../lib/model/core/write-result';
import { getPool, type Queryable, type Session, toFencingError, withTransaction } from './pool';
import { identityParams, type WorkerIdentity } from './worker-identity';

/*
 * The "your guard" lab (0033_your_guard_lab.sql): the trainee's statement, installed as a function of
 * the lab's own role, and the write that runs it. The statement handed to installGuard is only ever
 * the canonical text lib/server/guard-parser.ts made from a parse tree that passed the guard rules.
 */

/** How long one write may run, the trainee's statement included (set for the write's transaction). */
export const GUARD_STATEMENT_TIMEOUT_MS = 2_000;

/** Installs (or replaces) the lab's guard. PostgreSQL's own refusal of the statement comes back as `guard_refused`. */
export async function installGuard(lab: string, statement: string): Promise<void> {
  await withTransaction(async (client) => {
    // The install tries the statement once (and undoes it): under the same timeout as a write.
    await client.query(`SET LOCAL statement_timeout = ${GUARD_STATEMENT_TIMEOUT_MS}`);
    await client.query('SELECT fl_install_guard($1, $2)', [lab, statement]);
  }).catch((error: unknown) => {
    // PostgreSQL's refusal of the statement (FLG01) is the person's to read: invalid_input, in its words.
    throw toFencingError(error);
  });
}

/** Drops the lab's guard, its schema and its role (when the lab closes). */
export async function dropGuard(lab: string, db: Queryable = getPool()): Promise<void> {
  await db.query('SELECT fl_drop_guard($1)', [lab]);
}

/** Stages the lab's next grant at `token` (the attack's stale writers); returns the token the next grant mints. */
export async function stageGuardToken(lab: string, token: number, db: Queryable = getPool()): Promise<number> {
  const { rows } = await db.query<{ staged: string }>('SELECT fl_stage_guard_token($1, $2) AS staged', [lab, token]);
  return Number(rows[0]?.staged);
}

export type GuardWrite = { as: WorkerIdentity; rowId: number; value: string; token: Token };

/** A worker's write through its lab's guard, under a statement timeout; its event is recorded in the same transaction. */
export async function writeThroughYourGuard(write: GuardWrite, session: Session): Promise<WriteResult> {
  const row = await withTransaction(async (client) => {
    // A function's own SET statement_timeout does not arm the timer of the statement that calls it:
    // the write's transaction sets it.
    await client.query(`SET LOCAL statement_timeout = ${GUARD_STATEMENT_TIMEOUT_MS}`);
    const { rows } = await client.query<{ outcome: string; stored_token: string | null }>(
      'SELECT * FROM worker_your_guard_write($1, $2, $3, $4, $5)',
      [...identityParams(write.as), write.value, write.token],
    );
    return rows[0];
  }, session);
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
