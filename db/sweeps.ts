import 'server-only';
import type { SweepRunResult } from '../lib/model/sweep/sweep-cell';
import { type SweepGrid, sweepGridSchema } from '../lib/model/sweep/sweep-grid';
import { JOB_ADD_GRACE_MS } from './jobs-database';
import { getJobsPool, getPool, type Queryable } from './pool';

/*
 * Sweeps as jobs (issue 24, 0044_sweep_jobs.sql): a sweep is a row in the lab's database and one
 * graphile-worker job per run in the job queue's (issue 33, db/jobs-database.ts), added just after it; each run's result is written once; a sweep is over once no job of
 * it is waiting or running. The room runs one sweep at a time (a unique index). Times are the
 * database's. Jobs are read from graphile-worker's public view only (db/job-line.ts).
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

/**
 * Ends every sweep with no job left waiting or running. One that has fewer results than runs and was
 * not stopped says why: its runs' servers died, or their results could not be written, too often. In
 * two steps, as the two databases are apart (db/jobs-database.ts): the sweeps under way, then which of
 * them have a job waiting or running. A sweep with no result yet and not stopped is judged only
 * `graceMs` after it started (JOB_ADD_GRACE_MS: its runs' jobs are added just after its row, and a
 * crash between the two leaves a sweep without jobs, which this ends).
 */
export async function finishSweepsWithoutJobs(
  db: Queryable = getPool(),
  jobs: Queryable = getJobsPool(),
  { graceMs = JOB_ADD_GRACE_MS }: { graceMs?: number } = {},
): Promise<number> {
  // Its jobs were added for sure once it has a result or was stopped (a stop removes them).
  const open = await db.query<{ id: string }>(
    `SELECT s.id FROM sweeps s
      WHERE s.finished_at IS NULL
        AND (s.stopped OR EXISTS (SELECT FROM sweep_results r WHERE r.sweep = s.id)
             OR s.started_at < clock_timestamp() - make_interval(secs => $1::float8 / 1000))`,
    [graceMs],
  );
  if (open.rows.length === 0) return 0;
  // A job spent by its tries is neither waiting nor running.
  const { rows: done } = await jobs.query<{ id: string }>(
    `SELECT s.id FROM unnest($1::text[]) AS s(id)
      WHERE NOT EXISTS (SELECT FROM graphile_worker.jobs j
                         WHERE j.key LIKE 'sweep_run:' || s.id || ':%'
                           AND (j.attempts < j.max_attempts OR j.locked_at IS NOT NULL))`,
    [open.rows.map((row) => row.id)],
  );
  if (done.length === 0) return 0;
  const { rowCount } = await db.query(
    `UPDATE sweeps s SET finished_at = clock_timestamp(),
            failure = CASE WHEN NOT s.stopped AND s.total > (SELECT count(*) FROM sweep_results r WHERE r.sweep = s.id) THEN
              (s.total - (SELECT count(*) FROM sweep_results r WHERE r.sweep = s.id)) || ' of ' || s.total || ' runs could not finish: the app servers running them stopped, or their results could not be written, ' || $2::int || ' times'
            END
      WHERE s.id = ANY($1) AND s.finished_at IS NULL`,
    [done.map((row) => row.id), SWEEP_RUN_MAX_TRIES],
  );
  return rowCount ?? 0;
}

/**
 * A new sweep, then its runs' jobs (keyed by the sweep and the run: adding them twice adds them once):
 * false when another sweep is running in the room. A sweep's runs share `concurrency` job queues
 * (graphile-worker runs one job of a queue at a time), so no more of them run at once, whichever
 * servers take them. Jobs that cannot be added take the sweep back and the error is thrown (a job
 * added after all finds no sweep and runs nothing); a crash between the two is ended by
 * finishSweepsWithoutJobs.
 */
export async function insertSweep(
  sweep: { id: string; startedBy: string; grid: SweepGrid; concurrency: number; total: number },
  db: Queryable = getPool(),
  jobs: Queryable = getJobsPool(),
): Promise<boolean> {
  await finishSweepsWithoutJobs(db, jobs);
  if (!(await insertSweepRow(sweep, db))) return false;
  try {
    await addSweepRunJobs(sweep, jobs);
  } catch (error) {
    // Its runs run nothing without it. If this fails too, finishSweepsWithoutJobs ends it.
    await db
      .query('DELETE FROM sweeps WHERE id = $1', [sweep.id])
      .catch((cleanup: Error) => console.error(`[jobs] sweep ${sweep.id} left for the repair: ${cleanup.message}`));
    throw error;
  }
  await db.query(
    `DELETE FROM sweeps WHERE finished_at IS NOT NULL
        AND id NOT IN (SELECT id FROM sweeps ORDER BY started_at DESC LIMIT ${KEPT_SWEEPS})`,
  );
  return true;
}

/** The first step of insertSweep: the sweep's row, in the lab's database; false when one is running. */
export async function insertSweepRow(
  sweep: { id: string; startedBy: string; grid: SweepGrid; concurrency: number; total: number },
  db: Queryable = getPool(),
): Promise<boolean> {
  try {
    await db.query('INSERT INTO sweeps (id, started_by, grid, concurrency, total) VALUES ($1, $2, $3, $4, $5)', [
      sweep.id,
      sweep.startedBy,
      JSON.stringify(sweep.grid),
      sweep.concurrency,
      sweep.total,
    ]);
  } catch (error) {
    if ((error as { constraint?: string }).constraint === 'sweeps_one_running') return false;
    throw error;
  }
  return true;
}

/** The second step: one job per run, in one statement, in the job queue's database. */
export async function addSweepRunJobs(
  sweep: { id: string; concurrency: number; total: number },
  jobs: Queryable = getJobsPool(),
): Promise<void> {
  await jobs.query(
    `SELECT graphile_worker.add_job($2, json_build_object('sweep', $1::text, 'index', i),
              queue_name => 'sweep:' || $1::text || ':' || (i % $3),
              max_attempts => $5, job_key => 'sweep_run:' || $1::text || ':' || i)
       FROM generate_series(0, $4 - 1) AS i`,
    [sweep.id, SWEEP_RUN_TASK, sweep.concurrency, sweep.total, SWEEP_RUN_MAX_TRIES],
  );
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
export async function sweepRunsUnderWay(id: string, jobs: Queryable = getJobsPool()): Promise<number> {
  const { rows } = await jobs.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM graphile_worker.jobs
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
 * Stops a running sweep: marked stopped, then its runs not yet taken removed from the queue (the job
 * queue's database); the runs under way see the mark and stop their workers
 * (lib/sweep/sweep-run-job.ts), and a run taken between the two sees it at its start and runs nothing.
 */
export async function stopSweepRow(
  id: string,
  db: Queryable = getPool(),
  jobs: Queryable = getJobsPool(),
): Promise<void> {
  const { rowCount } = await db.query('UPDATE sweeps SET stopped = true WHERE id = $1 AND finished_at IS NULL', [id]);
  if (!rowCount) return;
  await jobs.query(
    `SELECT graphile_worker.remove_job(j.key) FROM graphile_worker.jobs j
      WHERE j.key LIKE 'sweep_run:' || $1 || ':%' AND j.locked_at IS NULL`,
    [id],
  );
}

/** Whether a sweep was stopped (a run under way asks every half second). */
export async function sweepStopped(id: string, db: Queryable = getPool()): Promise<boolean> {
  const { rows } = await db.query<{ stopped: boolean }>('SELECT stopped FROM sweeps WHERE id = $1', [id]);
  return rows[0]?.stopped ?? true;
}
