import 'server-only';
import { FencingError } from '../lib/model/core/errors';
import { type GuardShare, type GuardShareKind, guardShareWords } from '../lib/model/guard/guard-share';
import { getPool, type Queryable } from './pool';
import { ourSqlstate } from './sqlstates';

/*
 * Every guard a trainee submitted (0034_guard_attempts.sql): for the trainee's own list, the class
 * wall, and the counterexample a link opens on /replay. Each keeps the client address it came from,
 * for the room's count of guards a minute (0045) only: it is not among ATTEMPT_COLUMNS, so nothing
 * read through here shows it.
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

/** Who sent an attempt: the client's address (stored for the count, never shown) and the share it counts against. */
export type SentBy = { address: string; share: GuardShare };

/** An address longer than this (a forged X-Forwarded-For hop) is counted by its first characters. */
const ADDRESS_CHARS = 100;

/**
 * The condition an attempt's INSERT … SELECT takes its share with (fl_take_guard_share, 0045): the
 * owner's hash is parameter `$owner`, and sentByParams' five (the address and the kind, which the
 * insert stores too, then the bounds) are parameters from `$first`.
 */
export const takeShare = (owner: number, first: number) =>
  `fl_take_guard_share($${owner}, ${[0, 1, 2, 3, 4].map((i) => `$${first + i}`).join(', ')})`;

/** The address (cut as the column is), the kind, the bounds: the parameters takeShare names from `$first`. */
export function sentByParams(sentBy: SentBy, kind: GuardShareKind): unknown[] {
  return [
    sentBy.address.slice(0, ADDRESS_CHARS),
    kind,
    sentBy.share.perOwner,
    sentBy.share.perAddress,
    sentBy.share.windowMs,
  ];
}

/** A share used (FLG02, db/sqlstates.ts) as the refusal the editor shows, with when to come back; any other error as it was. */
export function shareUsedInWords(error: unknown, kind: GuardShareKind): unknown {
  const { detail } = (error ?? {}) as { detail?: unknown };
  if (ourSqlstate(error) !== 'FLG02' || typeof detail !== 'string') return error;
  const used = JSON.parse(detail) as { by: 'owner' | 'address'; limit: number; wait_s: number };
  return new FencingError(
    'rate_limited',
    guardShareWords({ kind, by: used.by, limit: Number(used.limit), waitSeconds: Number(used.wait_s) }),
    { cause: error },
  );
}

/**
 * A refused statement, kept once: when this owner's latest refusal in the lab is the same statement,
 * that attempt is the answer and nothing is stored (a trainee pressing Submit on the same typo, or a
 * script doing it 300 times, adds nothing to the wall or the table, nor to the count). A new one is
 * stored only within the owner's and the address's share of refusals this minute, counted by the
 * database for the whole room: past it, a FencingError says when to come back, and nothing is stored.
 */
export async function recordRefusedGuard(
  input: Pick<GuardAttempt, 'lab' | 'ownerHash' | 'name' | 'statement' | 'verdict'> & { sentBy: SentBy },
  db: Queryable = getPool(),
): Promise<GuardAttempt> {
  const statement = input.statement.slice(0, 2000);
  const latest = await latestGuardAttempt(input, db);
  if (latest?.outcome === 'refused' && latest.statement === statement) return latest;
  try {
    const { rows } = await db.query<AttemptRow>(
      `INSERT INTO guard_attempts (lab, owner_hash, name, statement, outcome, verdict, address, counted_as)
       SELECT $1, $2, $3, $4, 'refused', $5, $6, $7 WHERE ${takeShare(2, 6)}
       RETURNING ${ATTEMPT_COLUMNS}`,
      [
        input.lab,
        input.ownerHash,
        input.name,
        statement,
        input.verdict.slice(0, 2000),
        ...sentByParams(input.sentBy, 'refusal'),
      ],
    );
    return reshapeAttempt(rows[0] as AttemptRow);
  } catch (error) {
    throw shareUsedInWords(error, 'refusal');
  }
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
