import 'server-only';
import { FencingError } from '../lib/model/core/errors';
import { getPool, type Queryable } from './pool';

/*
 * A lab's generation: which run of the lab it is on. A reset starts the next one
 * (0008_lab_generations.sql), and a worker carries the generation it joined: every lease, write and
 * event statement it sends checks it in that same statement, so a worker that joined before the
 * last reset is refused by the database, whether or not it heard of the reset.
 */

/**
 * SQL to AND into a statement's WHERE clause: the lab (parameter `labParam`) is still on the
 * generation in parameter `generationParam`, or raises FL007 (`lab_reset`). A null generation is
 * the server's own statement (the supervisor, the expiry recorder, a reset, tests), which no reset makes stale.
 */
export function generationCheck(labParam: number, generationParam: number): string {
  return `($${generationParam}::bigint IS NULL OR lab_generation_current($${labParam}::text, $${generationParam}::bigint))`;
}

/** The generation a worker joins the lab at. */
export async function readLabGeneration(lab: string, db: Queryable = getPool()): Promise<number> {
  const { rows } = await db.query<{ generation: string }>('SELECT generation FROM labs WHERE id = $1', [lab]);
  const row = rows[0];
  if (!row) throw new FencingError('invalid_input', `no lab ${lab}`);
  return Number(row.generation);
}

/**
 * A reset's first statement, inside its transaction: waits for every worker statement of the lab in
 * flight to commit, then moves the lab to its next generation. Returns it.
 */
export async function bumpLabGeneration(lab: string, db: Queryable): Promise<number> {
  const { rows } = await db.query<{ generation: string | null }>('SELECT lab_generation_bump($1) AS generation', [lab]);
  const generation = rows[0]?.generation;
  if (generation === null || generation === undefined) throw new FencingError('invalid_input', `no lab ${lab}`);
  return Number(generation);
}

/** How long a reset waits for the lab's worker transactions in flight before it ends their sessions. */
export const RESET_LOCK_WAIT_MS = 2_000;

/**
 * A reset's transaction waits at most RESET_LOCK_WAIT_MS for any lock; then its statement fails
 * with 55P03 (lock_not_available) and the reset ends the sessions holding the lab (below).
 */
export async function limitResetLockWait(db: Queryable): Promise<void> {
  await db.query(`SET LOCAL lock_timeout = ${RESET_LOCK_WAIT_MS}`);
}

/**
 * Ends the database sessions that hold the lab's generation lock: worker transactions of the run a
 * reset is ending that do not finish (a worker frozen by the operating system in the middle of one,
 * a laptop asleep with its connection open). Harmless to them: they belong to the run being reset,
 * and a worker whose session ends reconnects, is refused as stale, and stops. Returns how many.
 */
export async function endSessionsHoldingLab(lab: string, db: Queryable = getPool()): Promise<number> {
  // The worker role's sessions, which the app role may not signal: the owner's function does it
  // (fl_end_sessions_holding_lab, 0016_worker_functions.sql).
  const { rows } = await db.query<{ ended: number }>('SELECT fl_end_sessions_holding_lab($1) AS ended', [lab]);
  return rows[0]?.ended ?? 0;
}
