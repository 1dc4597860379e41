import 'server-only';
import type { HistoryFile } from '../lib/model/history/history-file';
import { getPool, type Queryable } from './pool';

/*
 * Every guard a trainee submitted (0034_guard_attempts.sql): for the trainee's own list, the class
 * wall, and the counterexample a link opens on /replay.
 */

export type { GuardOutcome } from '../lib/model/guard/guard-inputs';

import type { GuardOutcome } from '../lib/model/guard/guard-inputs';

export type GuardAttempt = {
  id: number;
  lab: string;
  ownerHash: string;
  name: string;
  statement: string;
  outcome: GuardOutcome;
  rule?: string;
  verdict: string;
  detail?: string;
  hasCounterexample: boolean;
  createdAt: Date;
};

export type AttemptRow = {
  id: string;
  lab: string;
  owner_hash: string;
  name: string;
  statement: string;
  outcome: GuardOutcome;
  rule: string | null;
  verdict: string;
  detail: string | null;
  has_history: boolean;
  created_at: Date;
};

export const ATTEMPT_COLUMNS =
  'id, lab, owner_hash, name, statement, outcome, rule, verdict, detail, history IS NOT NULL AS has_history, created_at';

export function reshapeAttempt(row: AttemptRow): GuardAttempt {
  return {
    id: Number(row.id),
    lab: row.lab,
    ownerHash: row.owner_hash,
    name: row.name,
    statement: row.statement,
    outcome: row.outcome,
    ...(row.rule ? { rule: row.rule } : {}),
    verdict: row.verdict,
    ...(row.detail ? { detail: row.detail } : {}),
    hasCounterexample: row.has_history,
    createdAt: row.created_at,
  };
}

export async function recordGuardAttempt(
  input: Omit<GuardAttempt, 'id' | 'createdAt' | 'hasCounterexample' | 'detail'> & { history?: HistoryFile },
  db: Queryable = getPool(),
): Promise<GuardAttempt> {
  const { rows } = await db.query<AttemptRow>(
    `INSERT INTO guard_attempts (lab, owner_hash, name, statement, outcome, rule, verdict, history)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${ATTEMPT_COLUMNS}`,
    [
      input.lab,
      input.ownerHash,
      input.name,
      input.statement.slice(0, 2000),
      input.outcome,
      input.rule ?? null,
      input.verdict.slice(0, 2000),
      input.history ? JSON.stringify(input.history) : null,
    ],
  );
  return reshapeAttempt(rows[0] as AttemptRow);
}

/**
 * A refused statement, kept once: when this owner's latest refusal in the lab is the same statement,
 * that attempt is the answer and nothing is stored (a trainee pressing Submit on the same typo, or a
 * script doing it 300 times, adds nothing to the wall or the table).
 */
export async function recordRefusedGuard(
  input: Pick<GuardAttempt, 'lab' | 'ownerHash' | 'name' | 'statement' | 'verdict'>,
  db: Queryable = getPool(),
): Promise<GuardAttempt> {
  const latest = await latestGuardAttempt(input, db);
  if (latest?.outcome === 'refused' && latest.statement === input.statement.slice(0, 2000)) return latest;
  return recordGuardAttempt({ ...input, outcome: 'refused' }, db);
}

/**
 * This owner's latest attempt in the lab (its editor opens with it), or with `attacked` their latest
 * that was installed and attacked (the guard the row has now); or undefined.
 */
export async function latestGuardAttempt(
  input: Pick<GuardAttempt, 'lab' | 'ownerHash'> & { attacked?: boolean },
  db: Queryable = getPool(),
): Promise<GuardAttempt | undefined> {
  const { rows } = await db.query<AttemptRow>(
    `SELECT ${ATTEMPT_COLUMNS} FROM guard_attempts WHERE lab = $1 AND owner_hash = $2 AND (NOT $3 OR outcome <> 'refused')
      ORDER BY id DESC LIMIT 1`,
    [input.lab, input.ownerHash, input.attacked ?? false],
  );
  return rows[0] ? reshapeAttempt(rows[0]) : undefined;
}

/** One attempt, or undefined. */
export async function findGuardAttempt(id: number, db: Queryable = getPool()): Promise<GuardAttempt | undefined> {
  const { rows } = await db.query<AttemptRow>(`SELECT ${ATTEMPT_COLUMNS} FROM guard_attempts WHERE id = $1`, [id]);
  return rows[0] ? reshapeAttempt(rows[0]) : undefined;
}

/** An attempt's counterexample, as the history file it was stored as. */
export async function readGuardCounterexample(id: number, db: Queryable = getPool()): Promise<unknown> {
  const { rows } = await db.query<{ history: unknown }>('SELECT history FROM guard_attempts WHERE id = $1', [id]);
  return rows[0]?.history ?? undefined;
}

/** The newest attempts: of one owner, or (ownerHash undefined) of everyone, for the trainer's wall. */
export async function listGuardAttempts(
  input: { ownerHash?: string; limit?: number },
  db: Queryable = getPool(),
): Promise<GuardAttempt[]> {
  const { rows } = await db.query<AttemptRow>(
    `SELECT ${ATTEMPT_COLUMNS} FROM guard_attempts WHERE ($1::text IS NULL OR owner_hash = $1) ORDER BY id DESC LIMIT $2`,
    [input.ownerHash ?? null, input.limit ?? 200],
  );
  return rows.map(reshapeAttempt);
}
