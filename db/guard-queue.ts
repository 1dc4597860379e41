import 'server-only';
import { FencingError } from '../lib/model/core/errors';
import type { QueueFacts } from '../lib/model/guard/guard-queue';
import type { HistoryFile } from '../lib/model/history/history-file';
import {
  ATTEMPT_COLUMNS,
  type AttemptRow,
  type GuardAttempt,
  reshapeAttempt,
  type SentBy,
  sentByParams,
  shareUsedInWords,
  takeShare,
} from './guard-attempts';
import { jobsAheadSql, roomSlotsSql } from './job-line';
import { JOB_ADD_GRACE_MS } from './jobs-database';
import { getJobsPool, getPool, type Queryable } from './pool';

/*
 * Guard attacks as jobs (issue 24, 0043_guard_attack_jobs.sql): a guard joins the line as a 'queued'
 * attempt in the lab's database and a graphile-worker job in the job queue's (issue 33,
 * db/jobs-database.ts), the attempt first, the job keyed by it; a server claims it with a run token from a
 * sequence, and only the newest claim's verdict is written (first one wins, a woken stale run is
 * fenced off). Every time is the database's.
 */

export const GUARD_ATTACK_TASK = 'guard_attack';
/** A job whose servers died this many times is failed in words rather than tried again. */
export const GUARD_ATTACK_MAX_RUNS = 3;
/** How many recent attacks the estimate's typical length is the median of. */
const TYPICAL_OF = 20;

/**
 * A beat older than this is a dead server's (db/job-servers.ts). Not 2 s, which the job-queue benchmark
 * used: a Next server on a loaded 2-CPU box (two attacks, load 10-14) missed its 500 ms beats for over
 * 2 s, was taken for dead, and its running attack was started again beside it (bench classroom, 08:29).
 */
export const SERVER_STALE_MS = 8_000;

/**
 * Puts a guard in line: its attempt, then its job (keyed by the attempt: adding it twice is adding it
 * once), within the owner's and the address's share of attacks this minute, counted by the database
 * for the whole room (0045, fl_take_guard_share): past it, a FencingError says when to come back, and
 * nothing is stored. A trainee with a guard already in line (any lab, any server) is refused by the
 * database's one-queued-per-owner index. A job that cannot be added takes its attempt back (the share
 * with it) and the error is thrown; a crash between the two is repaired by failAbandonedGuardAttempts.
 */
export async function enqueueGuardAttack(
  input: Pick<GuardAttempt, 'lab' | 'ownerHash' | 'name' | 'statement'> & { sentBy: SentBy },
  db: Queryable = getPool(),
  jobs: Queryable = getJobsPool(),
): Promise<GuardAttempt> {
  const attempt = await insertQueuedAttempt(input, db);
  try {
    await addGuardAttackJob(attempt.id, jobs);
  } catch (error) {
    // Not claimed yet (no job, no run): taken back. If this fails too, the repair ends it in words.
    await db
      .query(`DELETE FROM guard_attempts WHERE id = $1 AND outcome = 'queued' AND run_token IS NULL`, [attempt.id])
      .catch((cleanup: Error) => console.error(`[jobs] attempt ${attempt.id} left for the repair: ${cleanup.message}`));
    throw error;
  }
  return attempt;
}

/** The first step of enqueueGuardAttack: the queued attempt, in the lab's database. */
export async function insertQueuedAttempt(
  input: Pick<GuardAttempt, 'lab' | 'ownerHash' | 'name' | 'statement'> & { sentBy: SentBy },
  db: Queryable = getPool(),
): Promise<GuardAttempt> {
  try {
    const { rows } = await db.query<AttemptRow>(
      `INSERT INTO guard_attempts (lab, owner_hash, name, statement, outcome, verdict, address, counted_as)
       SELECT $1, $2, $3, $4, 'queued', 'in line', $5, $6 WHERE ${takeShare(2, 5)}
       RETURNING ${ATTEMPT_COLUMNS}`,
      [input.lab, input.ownerHash, input.name, input.statement.slice(0, 2000), ...sentByParams(input.sentBy, 'attack')],
    );
    return reshapeAttempt(rows[0] as AttemptRow);
  } catch (error) {
    if ((error as { constraint?: string }).constraint === 'guard_attempts_one_queued') {
      throw new FencingError(
        'rate_limited',
        'your guard is already in line: wait for its verdict (your statement is kept)',
      );
    }
    throw shareUsedInWords(error, 'attack');
  }
}

/** The second step: the attempt's job, in the job queue's database, keyed by the attempt. */
export async function addGuardAttackJob(attempt: number, jobs: Queryable = getJobsPool()): Promise<void> {
  await jobs.query(
    `SELECT graphile_worker.add_job($1, json_build_object('attempt', $2::bigint), max_attempts => $3,
                                    job_key => 'guard_attempt:' || $2::bigint)`,
    [GUARD_ATTACK_TASK, attempt, GUARD_ATTACK_MAX_RUNS],
  );
}

/** A claim on a queued attempt: its run token, or undefined when it already has its verdict. */
export async function claimGuardAttempt(
  id: number,
  server: string,
  db: Queryable = getPool(),
): Promise<{ runToken: number; attempt: GuardAttempt } | undefined> {
  const { rows } = await db.query<AttemptRow & { run_token: string }>(
    `UPDATE guard_attempts SET run_token = nextval('guard_attack_run_tokens'), run_by = $2,
            started_at = clock_timestamp(), verdict = 'being attacked'
      WHERE id = $1 AND outcome = 'queued' RETURNING ${ATTEMPT_COLUMNS}, run_token`,
    [id, server.slice(0, 200)],
  );
  const row = rows[0];
  return row ? { runToken: Number(row.run_token), attempt: reshapeAttempt(row) } : undefined;
}

/**
 * The verdict of the newest claim, written once: false when another run has claimed it since (this
 * run was presumed dead) or already wrote it.
 */
export async function finishGuardAttempt(
  id: number,
  runToken: number,
  result: {
    outcome: 'passed' | 'violation' | 'refused' | 'failed';
    verdict: string;
    detail?: string;
    rule?: string;
    history?: HistoryFile;
  },
  db: Queryable = getPool(),
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE guard_attempts SET outcome = $3, verdict = $4, rule = $5, history = $6, detail = $7,
            finished_at = clock_timestamp()
      WHERE id = $1 AND outcome = 'queued' AND run_token = $2`,
    [
      id,
      runToken,
      result.outcome,
      result.verdict.slice(0, 2000),
      result.rule ?? null,
      result.history ? JSON.stringify(result.history) : null,
      result.detail?.slice(0, 2000) ?? null,
    ],
  );
  return rowCount === 1;
}

/**
 * Attempts whose job is gone or spent (its servers died, or it failed, GUARD_ATTACK_MAX_RUNS times, or
 * it was removed, or a crash came between the attempt and its job) are failed in words, the last
 * error's if it had one: none waits forever. In two steps, as the two databases are apart: the queued
 * attempts (read first), then their jobs; an attempt that got its verdict meanwhile is left as it is
 * (`outcome = 'queued'` in the update). An attempt with no job at all is judged only `graceMs` after it
 * was written (JOB_ADD_GRACE_MS: its job may be on its way).
 */
export async function failAbandonedGuardAttempts(
  db: Queryable = getPool(),
  jobs: Queryable = getJobsPool(),
  { graceMs = JOB_ADD_GRACE_MS }: { graceMs?: number } = {},
): Promise<number> {
  const queued = await db.query<{ id: string; settled: boolean }>(
    `SELECT id, created_at < clock_timestamp() - make_interval(secs => $1::float8 / 1000) AS settled
       FROM guard_attempts WHERE outcome = 'queued'`,
    [graceMs],
  );
  if (queued.rows.length === 0) return 0;
  const { rows: judged } = await jobs.query<{ id: string; verdict: string }>(
    `SELECT a.id::text, left(coalesce(
              (SELECT 'the attack could not finish after ' || j.attempts || ' tries: ' ||
                      coalesce(j.last_error, 'the app servers running it stopped')
                 FROM graphile_worker.jobs j WHERE j.key = 'guard_attempt:' || a.id),
              'the attack could not finish: its job is gone') || '; submit it again', 2000) AS verdict
       FROM unnest($1::bigint[], $2::boolean[]) AS a(id, settled)
      WHERE NOT EXISTS (SELECT FROM graphile_worker.jobs j
                         WHERE j.key = 'guard_attempt:' || a.id AND j.attempts < j.max_attempts)
        AND NOT EXISTS (SELECT FROM graphile_worker.jobs j
                         WHERE j.key = 'guard_attempt:' || a.id AND j.locked_at IS NOT NULL)
        AND (a.settled OR EXISTS (SELECT FROM graphile_worker.jobs j WHERE j.key = 'guard_attempt:' || a.id))`,
    [queued.rows.map((row) => row.id), queued.rows.map((row) => row.settled)],
  );
  if (judged.length === 0) return 0;
  const { rowCount } = await db.query(
    `UPDATE guard_attempts a SET outcome = 'failed', finished_at = clock_timestamp(), verdict = f.verdict
       FROM unnest($1::bigint[], $2::text[]) AS f(id, verdict)
      WHERE a.id = f.id AND a.outcome = 'queued'`,
    [judged.map((row) => row.id), judged.map((row) => row.verdict)],
  );
  return rowCount ?? 0;
}

type FactsRow = {
  id: string;
  running: boolean;
  ahead: string;
  held: string;
  running_now: string;
  slots: string;
};

type LineRow = { id: string; running_for: number | null; typical: number | null };

/**
 * What the queue says of queued attempts (all of them, or the given ones), read in two statements, one
 * per database: the attempts in line and the typical attack's length from the lab's, then their jobs
 * from the job queue's. A waiting attempt's place counts the jobs a server takes before its own,
 * whatever their kind (guard attacks, what-if forks' runs, sweeps' runs), as graphile-worker takes
 * them: db/job-line.ts, where a sweep's busy queues hold slots. The jobs running now are every kind's,
 * since each holds a slot.
 */
export async function queueFacts(
  ids?: readonly number[],
  db: Queryable = getPool(),
  jobs: Queryable = getJobsPool(),
): Promise<Map<number, QueueFacts>> {
  const { rows: line } = await db.query<LineRow>(
    `WITH recent AS (
       SELECT extract(epoch FROM finished_at - started_at) AS seconds FROM guard_attempts
        WHERE outcome IN ('passed', 'violation') AND finished_at IS NOT NULL AND started_at IS NOT NULL
        ORDER BY id DESC LIMIT ${TYPICAL_OF}
     )
     SELECT a.id, extract(epoch FROM clock_timestamp() - a.started_at)::float8 AS running_for,
            (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) FROM recent)::float8 AS typical
       FROM guard_attempts a
      WHERE a.outcome = 'queued' AND ($1::bigint[] IS NULL OR a.id = ANY($1))`,
    [ids ? [...ids] : null],
  );
  if (line.length === 0) return new Map();
  const { rows } = await jobs.query<FactsRow>(
    `WITH room AS (SELECT ${roomSlotsSql('$2')} AS slots), line AS (
       -- Being attacked is its job locked by a server now; a try that failed, or a server taken for
       -- dead, puts it back in line (started_at says only when it was last claimed).
       SELECT a.id, j.id AS job_id, j.priority, j.run_at, j.locked_at IS NOT NULL AS running
         FROM unnest($1::bigint[]) AS a(id)
         LEFT JOIN graphile_worker.jobs j ON j.key = 'guard_attempt:' || a.id
     )
     SELECT line.id, coalesce(line.running, false) AS running,
            CASE WHEN line.running OR line.job_id IS NULL THEN 0 ELSE place.ahead END AS ahead,
            CASE WHEN line.running OR line.job_id IS NULL THEN 0 ELSE place.held END AS held,
            (SELECT count(*) FROM graphile_worker.jobs WHERE locked_at IS NOT NULL) AS running_now,
            room.slots
       FROM line CROSS JOIN room CROSS JOIN LATERAL ${jobsAheadSql('line', 'room.slots')} place`,
    [line.map((row) => row.id), SERVER_STALE_MS],
  );
  const inLine = new Map(line.map((row) => [row.id, row]));
  return new Map(
    rows.map((row) => {
      const attempt = inLine.get(row.id);
      return [
        Number(row.id),
        {
          running: row.running,
          runningForSeconds: row.running ? (attempt?.running_for ?? 0) : 0,
          ahead: Number(row.ahead),
          held: Number(row.held),
          runningNow: Number(row.running_now),
          slots: Number(row.slots),
          typicalSeconds: attempt?.typical ?? undefined,
        },
      ];
    }),
  );
}
