import 'server-only';
import { whatIfWorkers } from '../model/history/what-if';
import type { WhatIfTimings } from '../model/history/what-if-settings';
import type { LabInstance } from '../model/lab/lab-instance';
import { runTimedPause } from './timed-pause';

/*
 * The pause story, run for real in a what-if fork's own lab with the fork's settings: new worker
 * processes A and B, as in the walkthrough, through the one timed pause story (timed-pause.ts). A
 * takes the lease (a token newer than any the original saw) and writes; A freezes in its critical
 * window for the pause length; B takes the lease if and when A's lease runs out by the database's
 * clock; A wakes and sends its late write. What then happens is whatever the database decides:
 * nothing here expects an outcome.
 */

/** Runs the story to A's late write (and B's write, if B got the lease in time), then stops the lab's workers. */
export async function runWhatIf(lab: LabInstance, w: WhatIfTimings): Promise<void> {
  const { failure } = await runTimedPause(lab, {
    workers: whatIfWorkers(w),
    pauseMs: w.pauseMs,
    waitForBMs: 2 * w.leaseTtlMs + 2 * w.renewEveryMs,
  });
  if (failure !== undefined) throw new Error(`the what-if run in ${lab.id}: ${failure}`);
}
