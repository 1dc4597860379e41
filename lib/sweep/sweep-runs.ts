import 'server-only';
import { randomBytes } from 'node:crypto';
import { FencingError } from '../model/errors';
import type { SweepGrid } from '../model/sweep-grid';
import { sweepRuns } from '../model/sweep-grid';
import { type SweepView, sweepProgressText } from '../model/sweep-view';
import { singleton } from '../os/process-singletons';
import { runSweep } from './run-sweep';

/*
 * Sweeps started from the page, one list per process like the chaos runs (a sweep's progress is this
 * server's to report; each run's outcome is read from its lab's events in PostgreSQL). One sweep
 * runs at a time on a server: its runs are real worker processes on a machine the room shares.
 * Each is seen only by whoever started it (the trainer, or one browser's owner secret), and by the
 * trainer, who may also stop it (so that one browser cannot hold the server's only sweep for minutes).
 */

const KEPT_SWEEPS = 20;
/** Sweeps running at once on this server. */
export const MAX_RUNNING_SWEEPS = 1;

/** Who started a sweep, as sweeperOf (lib/server/sweep-commands.ts) names them: 'trainer' or 'owner:<hash>'. */
export const TRAINER_SWEEPER = 'trainer';

type Entry = { view: SweepView; startedBy: string; stop: AbortController };
const sweeps = () => singleton('sweep.runs', () => new Map<string, Entry>());

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const newSweepId = () => `s-${[...randomBytes(10)].map((b) => ALPHABET[b % ALPHABET.length]).join('')}`;

/** Starts a sweep in the background and returns its view at once; the browser asks for its progress. */
export function startSweepRun(input: { grid: SweepGrid; concurrency: number }, startedBy: string): SweepView {
  const running = [...sweeps().values()].filter((entry) => entry.view.running);
  if (running.length >= MAX_RUNNING_SWEEPS) {
    const other = running[0]?.view;
    throw new FencingError(
      'limit_reached',
      `a sweep is already running on this server (${other ? sweepProgressText(other) : 'busy'}): wait for it to end`,
    );
  }
  const id = newSweepId();
  const view: SweepView = {
    id,
    grid: input.grid,
    concurrency: input.concurrency,
    total: sweepRuns(input.grid).length,
    done: 0,
    running: true,
    results: [],
    startedAt: Date.now(),
  };
  const entry: Entry = { view, startedBy, stop: new AbortController() };
  sweeps().set(id, entry);
  forgetOldest();
  void runSweep(
    input,
    ({ done, result }) => {
      entry.view = {
        ...entry.view,
        done,
        results: [...entry.view.results, result].sort((a, b) => a.index - b.index),
      };
    },
    entry.stop.signal,
  )
    .then(() => {
      entry.view = { ...entry.view, running: false, finishedAt: Date.now() };
    })
    .catch((error: unknown) => {
      console.error('[sweep] the sweep failed:', error);
      entry.view = { ...entry.view, running: false, finishedAt: Date.now(), failure: 'see the server log' };
    });
  return view;
}

const mayReach = (entry: Entry, by: string) => entry.startedBy === by || by === TRAINER_SWEEPER;

/** A sweep, if it exists and `by` started it or is the trainer. */
export function sweepRunOf(id: string, by: string): SweepView | undefined {
  const entry = sweeps().get(id);
  return entry && mayReach(entry, by) ? entry.view : undefined;
}

/**
 * Stops a running sweep, if it exists and `by` started it or is the trainer: no new run starts, and
 * the runs under way stop their workers at their next step and are reported `stopped`. The view says
 * `stopped` at once, and `running` until the last run under way has ended. A sweep already over is
 * left as it is.
 */
export function stopSweepRun(id: string, by: string): SweepView | undefined {
  const entry = sweeps().get(id);
  if (!entry || !mayReach(entry, by)) return undefined;
  if (entry.view.running && !entry.stop.signal.aborted) {
    entry.stop.abort();
    entry.view = { ...entry.view, stopped: true };
  }
  return entry.view;
}

/**
 * What /sweep shows on arrival to `by`: the sweep running on this server if `by` may reach it (the
 * trainer sees whoever's, to stop it if need be), else the last sweep `by` started here, if any.
 */
export function latestSweepOf(by: string): SweepView | undefined {
  const all = [...sweeps().values()];
  const running = all.find((entry) => entry.view.running && mayReach(entry, by));
  return (running ?? all.filter((entry) => entry.startedBy === by).at(-1))?.view;
}

function forgetOldest(): void {
  const all = sweeps();
  for (const [id, entry] of all) {
    if (all.size <= KEPT_SWEEPS) return;
    if (!entry.view.running) all.delete(id);
  }
}
