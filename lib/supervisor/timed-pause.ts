import 'server-only';
import { listEvents } from '../../db/events';
import { toWire, type WireEvent } from '../model/core/wire';
import type { WorkerSettings } from '../model/lab/lab-inputs';
import type { LabInstance } from '../model/lab/lab-instance';
import { runStory } from '../model/story/story-engine';
import { timedPauseFacts, timedPauseSteps } from '../model/story/timed-pause-story';
import { serverStoryDriver } from './story-driver';
import { getSupervisor } from './supervisor';
import { STEP_TIMEOUT_MS, WaitStopped } from './wait-for-event';

/*
 * The pause story, timed (its steps: lib/model/story/timed-pause-story.ts, run by the one story engine): A takes the lease and writes; B starts and waits for the lease; A is armed
 * to freeze in its critical window (after its lease check, before its write) for `pauseMs`, and
 * nothing else is done to either worker. Whether B takes over is up to the pause against the lease
 * TTL by the database's clock (and A's clock drift, which times A's renewals): unlike the story of
 * `npm run scenario -- pause` (lib/scenario/pause.ts), which holds A frozen until B has written.
 * The run ends once A has written after its freeze; what happened is read back from the events the
 * processes recorded (lib/model/sweep/sweep-cell.ts), not from what this function waited for. The one timed
 * pause story: a sweep's every run (lib/sweep/) and a what-if fork (lib/server/what-if.ts) run it.
 */

/** `stopped`: the caller's signal ended the story before it played out (its workers were stopped). */
export type TimedPauseRecord = { events: WireEvent[]; failure?: string; stopped?: true };

export type TimedPause = {
  /** The two workers' settings: A is the one that freezes. */
  workers: { A: WorkerSettings; B: WorkerSettings };
  pauseMs: number;
  /** After A's late write, how long to give B for a write of its own (a fork shows B's write beside A's). */
  waitForBMs?: number;
};

/**
 * Runs the story in `lab`. When `signal` aborts (someone stopped the sweep), the story ends at its
 * next wait: its workers are stopped as at any end, and the record says it was stopped.
 */
export async function runTimedPause(
  lab: LabInstance,
  story: TimedPause,
  signal?: AbortSignal,
): Promise<TimedPauseRecord> {
  const supervisor = getSupervisor();
  let failure: string | undefined;
  let stopped = false;
  try {
    if (signal?.aborted) throw new WaitStopped();
    await runStory(
      timedPauseSteps({
        pauseMs: story.pauseMs,
        ...(story.waitForBMs ? { waitForBMs: story.waitForBMs } : {}),
        stepTimeoutMs: STEP_TIMEOUT_MS,
      }),
      story.workers,
      serverStoryDriver(lab, timedPauseFacts, signal),
    );
  } catch (error) {
    if (error instanceof WaitStopped || signal?.aborted) stopped = true;
    else failure = error instanceof Error ? error.message : String(error);
  } finally {
    // Before the record is read: it ends with each worker's stop, where its lane ends.
    await supervisor.stopLab(lab, 'the story was over');
  }
  const record = await recorded(lab, failure);
  return stopped ? { ...record, stopped: true } : record;
}

async function recorded(lab: LabInstance, failure?: string): Promise<TimedPauseRecord> {
  const events = (await listEvents({ lab: lab.id })).map(toWire);
  return failure === undefined ? { events } : { events, failure };
}
