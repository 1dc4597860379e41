import 'server-only';
import type { OwnAnswer, PollState, PollView } from '../lib/model/poll/poll';
import { getPool, type Queryable, toFencingError } from './pool';

/*
 * The room's questions (0042_polls.sql): asked, answered and revealed only through the functions
 * db/functions/fl_poll_*.sql, which hold the rules; read here for the pages. The tallies are read
 * only for a revealed question, so that no caller gets them before the trainer shows them.
 */

/** A refusal of the poll functions (FLP01…FLP04), as its meaning in db/sqlstates.ts, in PostgreSQL's words. */
async function refusedInWords<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    throw toFencingError(error);
  }
}

export type AskPoll = { lab: string; step: number; question: string; choices: readonly string[] };

/** Asks the room; the question open before it is closed. Returns the new question's id. */
export async function askPoll(ask: AskPoll, db: Queryable = getPool()): Promise<number> {
  const { rows } = await refusedInWords(
    db.query<{ id: string }>('SELECT fl_poll_ask($1, $2, $3, $4::text[]) AS id', [
      ask.lab,
      ask.step,
      ask.question,
      ask.choices,
    ]),
  );
  return Number(rows[0]?.id);
}

/** A trainee's answer, replacing their earlier one; refused (`poll_closed`) once revealed or closed. */
export async function answerPoll(
  answer: { lab: string; poll: number; ownerHash: string; choice: number },
  db: Queryable = getPool(),
): Promise<void> {
  await refusedInWords(
    db.query('SELECT fl_poll_answer($1, $2, $3, $4)', [answer.lab, answer.poll, answer.ownerHash, answer.choice]),
  );
}

/** Reveals the named question if it is open. Returns whether it did. */
export async function revealPoll(lab: string, poll: number, db: Queryable = getPool()): Promise<boolean> {
  const { rows } = await db.query<{ n: number }>('SELECT fl_poll_reveal($1, $2, NULL) AS n', [lab, poll]);
  return (rows[0]?.n ?? 0) > 0;
}

/** The step being shown ran: reveals the open question about it (or an earlier step). */
export async function revealPollsAtStep(lab: string, step: number, db: Queryable = getPool()): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT fl_poll_reveal($1, NULL, $2) AS n', [lab, step]);
  return rows[0]?.n ?? 0;
}

type PollRow = {
  id: string;
  step: number;
  question: string;
  choices: string[];
  state: PollState;
  asked_at: Date;
  answered: number;
  tallies: number[] | null;
};

/** The questions of the lab's current run, oldest first, with the tallies of the revealed ones only. */
export async function readRunPolls(lab: string, db: Queryable = getPool()): Promise<PollView[]> {
  const { rows } = await db.query<PollRow>(
    `SELECT p.id, p.step, p.question, p.choices, p.state, p.asked_at,
            (SELECT count(*)::int FROM poll_answers a WHERE a.poll = p.id) AS answered,
            CASE WHEN p.state = 'revealed' THEN ARRAY(
              SELECT (SELECT count(*)::int FROM poll_answers a WHERE a.poll = p.id AND a.choice = i - 1)
                FROM generate_subscripts(p.choices, 1) AS i ORDER BY i) END AS tallies
       FROM polls p JOIN labs l ON l.id = p.lab AND p.generation = l.generation
      WHERE p.lab = $1
      ORDER BY p.id`,
    [lab],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    step: row.step,
    question: row.question,
    choices: row.choices,
    state: row.state,
    answered: row.answered,
    askedAt: row.asked_at.getTime(),
    ...(row.tallies === null ? {} : { tallies: row.tallies }),
  }));
}

/** One trainee's answers to the questions of the lab's current run. */
export async function readOwnAnswers(lab: string, ownerHash: string, db: Queryable = getPool()): Promise<OwnAnswer[]> {
  const { rows } = await db.query<{ poll: string; choice: number }>(
    `SELECT a.poll, a.choice FROM poll_answers a
       JOIN polls p ON p.id = a.poll JOIN labs l ON l.id = p.lab AND p.generation = l.generation
      WHERE p.lab = $1 AND a.owner_hash = $2 ORDER BY a.poll`,
    [lab, ownerHash],
  );
  return rows.map((row) => ({ poll: Number(row.poll), choice: row.choice }));
}
