import 'server-only';
import { randomBytes } from 'node:crypto';
import {
  findSweep,
  finishSweepsWithoutJobs,
  insertSweep,
  lastSweepOf,
  runningSweep,
  type SweepRow,
  stopSweepRow,
  sweepResults,
  sweepRunsUnderWay,
} from '../../db/sweeps';
import { FencingError } from '../model/core/errors';
import type { SweepGrid } from '../model/sweep/sweep-grid';
import { sweepRuns } from '../model/sweep/sweep-grid';
import { type SweepView, sweepProgressText } from '../model/sweep/sweep-view';

/*
 * Sweeps started from the page, kept in the database (db/sweeps.ts): each run is a job that any app
 * server on it runs (sweep-run-job.ts), and any server answers the page's "how far is it?" from the
 * rows. One sweep runs at a time in the room: its runs are real worker processes on machines the room
 * shares. Each is seen only by whoever started it (the trainer, or one browser's owner secret), and by
 * the trainer, who may also stop it (so that one browser cannot hold the room's only sweep for minutes).
 */

/** Sweeps running at once in the room (the database's sweeps_one_running index). */
export const MAX_RUNNING_SWEEPS = 1;

/** Who started a sweep, as sweeperOf (lib/server/sweep-commands.ts) names them: 'trainer' or 'owner:<hash>'. */
export const TRAINER_SWEEPER = 'trainer';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const newSweepId = () => `s-${[...randomBytes(10)].map((b) => ALPHABET[b % ALPHABET.length]).join('')}`;

async function viewOf(row: SweepRow): Promise<SweepView> {
  const running = row.finishedAt === undefined;
  const [results, underWay] = await Promise.all([sweepResults(row.id), running ? sweepRunsUnderWay(row.id) : 0]);
  return {
    id: row.id,
    grid: row.grid,
    concurrency: row.concurrency,
    total: row.total,
    done: results.length,
    running,
    ...(row.stopped ? { stopped: true } : {}),
    results,
    ...(underWay ? { underWay } : {}),
    startedAt: row.startedAt,
    ...(row.finishedAt !== undefined ? { finishedAt: row.finishedAt } : {}),
    ...(row.failure ? { failure: row.failure } : {}),
  };
}

/** Puts a sweep's runs in the room's queue and returns its view at once; the browser asks for its progress. */
export async function startSweepRun(
  input: { grid: SweepGrid; concurrency: number },
  startedBy: string,
): Promise<SweepView> {
  const id = newSweepId();
  const total = sweepRuns(input.grid).length;
  if (!(await insertSweep({ id, startedBy, grid: input.grid, concurrency: input.concurrency, total }))) {
    const other = await runningSweep();
    throw new FencingError(
      'limit_reached',
      `a sweep is already running in the room (${other ? sweepProgressText(await viewOf(other)) : 'busy'}): wait for it to end`,
    );
  }
  const row = await findSweep(id);
  if (!row) throw new Error(`the sweep ${id} was not recorded`);
  return viewOf(row);
}

const mayReach = (row: SweepRow, by: string) => row.startedBy === by || by === TRAINER_SWEEPER;

/** A sweep, if it exists and `by` started it or is the trainer. */
export async function sweepRunOf(id: string, by: string): Promise<SweepView | undefined> {
  await finishSweepsWithoutJobs();
  const row = await findSweep(id);
  return row && mayReach(row, by) ? viewOf(row) : undefined;
}

/**
 * Stops a running sweep, if it exists and `by` started it or is the trainer: no new run starts, and
 * the runs under way stop their workers within half a second and are reported `stopped`. The view
 * says `stopped` at once, and `running` until the last run under way has ended. A sweep already over
 * is left as it is.
 */
export async function stopSweepRun(id: string, by: string): Promise<SweepView | undefined> {
  const row = await findSweep(id);
  if (!row || !mayReach(row, by)) return undefined;
  if (row.finishedAt === undefined && !row.stopped) await stopSweepRow(id);
  return sweepRunOf(id, by);
}

/**
 * What /sweep shows on arrival to `by`: the sweep running in the room if `by` may reach it (the
 * trainer sees whoever's, to stop it if need be), else the last sweep `by` started, if any.
 */
export async function latestSweepOf(by: string): Promise<SweepView | undefined> {
  await finishSweepsWithoutJobs();
  const running = await runningSweep();
  const row = running && mayReach(running, by) ? running : await lastSweepOf(by);
  return row && viewOf(row);
}
