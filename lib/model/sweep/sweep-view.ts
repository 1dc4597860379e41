import type { SweepRunResult } from './sweep-cell';
import type { SweepGrid } from './sweep-grid';

/*
 * A sweep started from the page, as the server reports it to the browser that started it: its grid,
 * how far it is, and each run's result so far. Pure data.
 */

export type SweepView = {
  id: string;
  grid: SweepGrid;
  concurrency: number;
  total: number;
  done: number;
  running: boolean;
  /** Someone (its starter, or the trainer) stopped it: no new run starts, the runs under way end now. */
  stopped?: boolean;
  results: SweepRunResult[];
  /** Runs a server has taken from the queue and not finished: their jobs are locked now. */
  underWay?: number;
  /** The database's clock, ms since the epoch. */
  startedAt: number;
  finishedAt?: number;
  failure?: string;
};

export const SWEEP_ID_PATTERN = /^s-[a-z0-9]{10}$/;

/** The progress in words, for the bar's value text and the page's announcements. */
export function sweepProgressText(
  view: Pick<SweepView, 'done' | 'total' | 'running' | 'failure' | 'stopped' | 'underWay'>,
): string {
  if (view.failure) return `The sweep failed after ${view.done} of ${view.total} runs: ${view.failure}`;
  if (view.stopped && view.running)
    return `Stopping: ${view.done} of ${view.total} runs done, the runs under way end now`;
  if (view.stopped) return `Stopped after ${view.done} of ${view.total} runs`;
  if (!view.running) return `Done: ${view.total} of ${view.total} runs`;
  const underWay = view.underWay ? `, ${view.underWay} under way` : '';
  return `${view.done} of ${view.total} runs done${underWay}`;
}
