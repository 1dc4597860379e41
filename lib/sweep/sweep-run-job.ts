import 'server-only';
import { z } from 'zod';
import { findSweep, recordSweepResult, sweepStopped } from '../../db/sweeps';
import { sweepRuns } from '../model/sweep/sweep-grid';
import { runSweepRun } from './run-sweep';

/*
 * One run of a sweep, as a job any app server on the database runs (issue 24): the run's point and
 * fencing come from the sweep's grid in the database, the run happens in a private lab of its own on
 * this server (run-sweep.ts), and its result is written once. A run tried again after its server died
 * runs in a new lab (the dead one's is closed as orphaned, cell-labs.ts); if the first did write its
 * result after all, the second's is not written. A stopped sweep's run under way stops its workers
 * within half a second of the stop, and is recorded `stopped`; one not yet started runs nothing.
 */

export const sweepRunPayload = z
  .object({ sweep: z.string().regex(/^s-[a-z0-9]{10}$/), index: z.number().int().min(0).max(199) })
  .strict();

const STOP_CHECK_MS = 500;

export async function runSweepRunJob(payload: unknown): Promise<void> {
  const { sweep: id, index } = sweepRunPayload.parse(payload);
  const sweep = await findSweep(id);
  if (!sweep || sweep.stopped || sweep.finishedAt !== undefined) return;
  const run = sweepRuns(sweep.grid)[index];
  if (!run) return;
  const stop = new AbortController();
  const watch = setInterval(() => {
    sweepStopped(id)
      .then((stopped) => stopped && stop.abort())
      // The database away for a moment: the next check asks again.
      .catch(() => undefined);
  }, STOP_CHECK_MS);
  try {
    const result = await runSweepRun(run, stop.signal);
    await recordSweepResult(id, result);
  } finally {
    clearInterval(watch);
  }
}
