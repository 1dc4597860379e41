import 'server-only';
import type { SweepRunResult } from '../lib/model/sweep/sweep-cell';
import { type SweepGrid, sweepGridSchema } from '../lib/model/sweep/sweep-grid';
import { getPool, type Queryable } from './pool';

/*
 * Sweeps as jobs (issue 24, 0044_sweep_jobs.sql): a sweep is a row and one graphile-worker job per
 * run, added in the same statement; each run's result is written once; a sweep is over once no job of
 * it is waiting or running. The room runs one sweep at a time (a unique index). Times are the
 * database's.
 */

export const SWEEP_RUN_TASK = 'sweep_run';
/** A run whose servers died (or whose result could not be written) this many times is given up. */
export const SWEEP_RUN_MAX_TRIES = 3;
/** Finished sweeps kept for their starters to read back. */
const KEPT_SWEEPS = 50;

export type SweepRow = {
  id: string;
  startedBy: string;
  grid: SweepGrid;
  concurrency: number;
  total: number;
  stopped: boolean;
  failure?: string;
  startedAt: number;
  finishedAt?: number;
};

type Row = {
  id: string;
  started_by: string;
  grid: unknown;
  concurrency: number;
  total: number;
  stopped: boolean;
  failure: string | null;
  started_at: Date;
  finished_at: Date | null;
};

const COLUMNS = 'id, started_by, grid, concurrency, total, stopped, failure, started_at, finished_at';

function reshape(row: Row): SweepRow {
  return {
    id: row.id,
    startedBy: row.started_by,
    // Written by this module from a checked input; read back through the same schema all the same.
    grid: sweepGridSchema.parse(row.grid) as SweepGrid,
    concurrency: row.concurrency,
    total: row.total,
    stopped: row.stopped,
    ...(row.failure ? { failure: row.failure } : {}),
    startedAt: row.started_at.getTime(),
    ...(row.finished_at ? { finishedAt: row.finished_at.getTime() } : {}),
  };
}

/** The jobs of a sweep that are waiting or running (a job spent by its tries is neither). */
const PENDING_JOBS_OF = (sweep: string) =>
  `SELECT FROM graphile_worker._private_jobs j
    WHERE j.key LIKE 'sweep_run:' || ${sweep} || ':%'
      AND (j.attempts < j.max_attempts OR j.locked_at IS NOT NULL)`;

/**
 * Ends every sweep with no job left waiting or running. One that has fewer results than runs and was
 * not stopped says why: its runs' servers died, or their results could not be written, too often.
 */
export async function finishSweepsWithoutJobs(db: Queryable = getPool()): Promise<number> {
  const { rowCount } = await db.query(
    `WITH done AS (
       SELECT s.id, s.total - (SELECT count(*) FROM sweep_results r WHERE r.sweep = s.id) AS missing
         FROM sweeps s WHERE s.finished_at IS NULL AND NOT EXISTS (${PENDING_JOBS_OF('s.id')})
     )
     UPDATE sweeps s SET finished_at = clock_timestamp(),
            failure = CASE WHEN NOT s.stopped AND done.missing > 0 THEN
              done.missing || ' of ' || s.total || ' runs could not finish: the app servers running them stopped, or their results could not be written, ' || $1::int || ' times'
            END
       FROM done WHERE s.id = done.id`,
    [SWEEP_RUN_MAX_TRIES],
  );
  return rowCount ?? 0;
}

/**
 * A new sweep and its runs' jobs, in one transaction: false when another sweep is running in the room.
 * A sweep's runs share `concurrency` job queues (graphile-worker runs one job of a queue at a time),
 * so no more of them run at once, whichever servers take them.
 */
export async function insertSweep(
  sweep: { id: string; startedBy: string; grid: SweepGrid; concurrency: number; total: number },
  db: Queryable = getPool(),
): Promise<boolean> {
  await finishSweepsWithoutJobs(db);
  try {
    await db.query(
      `WITH sweep AS (
         INSERT INTO sweeps (id, started_by, grid, concurrency, total) VALUES ($1, $2, $3, $4, $5) RETURNING id
       )
       SELECT graphile_worker.add_job($6, json_build_object('sweep', sweep.id, 'index', i),
                queue_name => 'sweep:' || sweep.id || ':' || (i % $4),
                max_attempts => $7, job_key => 'sweep_run:' || sweep.id || ':' || i)
         FROM sweep, generate_series(0, $5 - 1) AS i`,
      [
        sweep.id,
        sweep.startedBy,
        JSON.stringify(sweep.grid),
        sweep.concurrency,
        sweep.total,
        SWEEP_RUN_TASK,
        SWEEP_RUN_MAX_TRIES,
      ],
    );
  } catch (error) {
    if ((error as { constraint?: string }).constraint === 'sweeps_one_running') return false;
    throw error;
  }
  await db.query(
    `DELETE FROM sweeps WHERE finished_at IS NOT NULL
        AND id NOT IN (SELECT id FROM sweeps ORDER BY started_at DESC LIMIT ${KEPT_SWEEPS})`,
  );
  return true;
}

export async function findSweep(id: string, db: Queryable = getPool()): Promise<SweepRow | undefined> {
  const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM sweeps WHERE id = $1`, [id]);
  return rows[0] && reshape(rows[0]);
}

/** The sweep running in the room, if any. */
export async function runningSweep(db: Queryable = getPool()): Promise<SweepRow | undefined> {
  const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM sweeps WHERE finished_at IS NULL`);
  return rows[0] && reshape(rows[0]);
}

/** The last sweep `startedBy` started, if any. */
export async function lastSweepOf(startedBy: string, db: Queryable = getPool()): Promise<SweepRow | undefined> {
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM sweeps WHERE started_by = $1 ORDER BY started_at DESC LIMIT 1`,
    [startedBy],
  );
  return rows[0] && reshape(rows[0]);
}

/** A sweep's results so far, in index order. */
export async function sweepResults(id: string, db: Queryable = getPool()): Promise<SweepRunResult[]> {
  const { rows } = await db.query<{ result: SweepRunResult }>(
    'SELECT result FROM sweep_results WHERE sweep = $1 ORDER BY index',
    [id],
  );
  return rows.map((row) => row.result);
}

/** How many of a sweep's runs a server has taken and not finished (their jobs are locked now). */
export async function sweepRunsUnderWay(id: string, db: Queryable = getPool()): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM graphile_worker._private_jobs
      WHERE key LIKE 'sweep_run:' || $1 || ':%' AND locked_at IS NOT NULL`,
    [id],
  );
  return rows[0]?.n ?? 0;
}

/** A run's result, written once: false when a run of that index already wrote one. */
export async function recordSweepResult(
  sweep: string,
  result: SweepRunResult,
  db: Queryable = getPool(),
): Promise<boolean> {
  const { rowCount } = await db.query(
    'INSERT INTO sweep_results (sweep, index, result) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
    [sweep, result.index, JSON.stringify(result)],
  );
  return rowCount === 1;
}

/**
 * Stops a running sweep: marked stopped, and its runs not yet taken removed from the queue, in one
 * statement; the runs under way see the mark and stop their workers (lib/sweep/sweep-run-job.ts).
 */
export async function stopSweepRow(id: string, db: Queryable = getPool()): Promise<void> {
  await db.query(
    `WITH stopped AS (
       UPDATE sweeps SET stopped = true WHERE id = $1 AND finished_at IS NULL RETURNING id
     )
     SELECT graphile_worker.remove_job(j.key)
       FROM stopped, graphile_worker._private_jobs j
      WHERE j.key LIKE 'sweep_run:' || stopped.id || ':%' AND j.locked_at IS NULL`,
    [id],
  );
}

/** Whether a sweep was stopped (a run under way asks every half second). */
export async function sweepStopped(id: string, db: Queryable = getPool()): Promise<boolean> {
  const { rows } = await db.query<{ stopped: boolean }>('SELECT stopped FROM sweeps WHERE id = $1', [id]);
  return rows[0]?.stopped ?? true;
}
