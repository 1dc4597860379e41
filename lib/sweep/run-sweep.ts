import 'server-only';
import { classifyRun, type SweepRunResult } from '../model/sweep/sweep-cell';
import { type SweepGrid, type SweepRun, sweepRuns, sweepWorkers } from '../model/sweep/sweep-grid';
import { runTimedPause } from '../supervisor/timed-pause';
import { closeCellLab, openCellLab } from './cell-labs';

/*
 * A sweep: every run of the grid (lib/model/sweep/sweep-grid.ts), each in a private lab of its own
 * (cell-labs.ts), `concurrency` at a time, each told as the timed pause story (timed-pause.ts) and
 * classified from its lab's events. A run that cannot be made (a limit reached, a worker that did
 * not start) is reported as unfinished with the reason, and the sweep goes on. When `signal` aborts
 * (someone stopped the sweep), no new run starts and the runs under way end at once, reported
 * `stopped`: the results hold the runs that started, and no more.
 */

export type SweepProgress = { done: number; total: number; result: SweepRunResult };

/** One run. When `signal` aborts while it is under way, its workers are stopped and it is reported `stopped`. */
export async function runSweepRun(run: SweepRun, signal?: AbortSignal): Promise<SweepRunResult> {
  const base = { index: run.index, point: run.point, fencing: run.fencing };
  let lab: Awaited<ReturnType<typeof openCellLab>> | undefined;
  try {
    lab = await openCellLab(run.kind);
    const record = await runTimedPause(
      lab,
      { workers: sweepWorkers(run.point, lab.kind), pauseMs: run.point.pauseMs },
      signal,
    );
    return {
      ...base,
      lab: lab.id,
      ...classifyRun(record.events),
      // Cut short by a stop: whatever its events show so far, the run concludes nothing.
      ...(record.stopped ? { outcome: 'stopped' as const } : {}),
      ...(record.failure ? { failure: record.failure } : {}),
    };
  } catch (error) {
    return {
      ...base,
      lab: lab?.id ?? '',
      ...classifyRun([]),
      failure: error instanceof Error ? error.message : String(error),
    };
  } finally {
    if (lab) await closeCellLab(lab).catch((error: unknown) => console.error(`[sweep] closing ${lab?.id}:`, error));
  }
}

export async function runSweep(
  input: { grid: SweepGrid; concurrency: number },
  onProgress: (progress: SweepProgress) => void = () => undefined,
  signal?: AbortSignal,
): Promise<SweepRunResult[]> {
  const runs = sweepRuns(input.grid);
  const results: SweepRunResult[] = [];
  let next = 0;
  const lane = async () => {
    for (;;) {
      if (signal?.aborted) return;
      const run = runs[next++];
      if (!run) return;
      const result = await runSweepRun(run, signal);
      results.push(result);
      onProgress({ done: results.length, total: runs.length, result });
    }
  };
  await Promise.all(Array.from({ length: Math.min(input.concurrency, runs.length) }, lane));
  return results.sort((a, b) => a.index - b.index);
}
