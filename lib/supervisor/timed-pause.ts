import 'server-only';
import { listEvents } from '../../db/events';
import type { LabEvent } from '../model/events';
import type { WorkerSettings } from '../model/lab-inputs';
import type { LabInstance } from '../model/lab-instance';
import { isLostToB } from '../model/sweep-cell';
import { toWire, type WireEvent } from '../model/wire';
import { getSupervisor } from './supervisor';
import { STEP_TIMEOUT_MS, WaitStopped, waitForLabEvent } from './wait-for-event';

/*
 * The pause story, timed: A takes the lease and writes; B starts and waits for the lease; A is armed
 * to freeze in its critical window (after its lease check, before its write) for `pauseMs`, and
 * nothing else is done to either worker. Whether B takes over is up to the pause against the lease
 * TTL by the database's clock (and A's clock drift, which times A's renewals): unlike the story of
 * `npm run scenario -- pause` (lib/scenario/pause.ts), which holds A frozen until B has written.
 * The run ends once A has written after its freeze; what happened is read back from the events the
 * processes recorded (lib/model/sweep-cell.ts), not from what this function waited for. The one timed
 * pause story: a sweep's every run (lib/sweep/) and a what-if fork (lib/server/what-if.ts) run it.
 */

const isWrite = (e: LabEvent) => e.kind === 'write_accepted' || e.kind === 'write_rejected';

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
  const { A, B } = story.workers;
  const point = { pauseMs: story.pauseMs };
  const waitForEvent = (
    what: string,
    match: (event: LabEvent, events: readonly LabEvent[]) => boolean,
    timeoutMs = STEP_TIMEOUT_MS,
  ) => waitForLabEvent(lab, what, match, signal ? { timeoutMs, signal } : { timeoutMs });
  let failure: string | undefined;
  let stopped = false;
  try {
    if (signal?.aborted) throw new WaitStopped();
    await supervisor.startWorker(lab, A);
    await waitForEvent('A writes', (e) => e.actor === 'A' && e.kind === 'write_accepted');
    // B joins and polls for the lease from now on; A's lease holds it off until it runs out.
    await supervisor.startWorker(lab, B);
    await supervisor.pause(lab, 'A', { mode: 'critical-window', seconds: point.pauseMs / 1000 });
    // A may find its lease taken over (its renewal refused) before the pause strikes: a slow clock
    // renews late. It then waits for the lease, which B holds, and writes nothing more: the story ends.
    const froze = await waitForEvent(
      'A freezes',
      (e, events) => (e.actor === 'A' && e.kind === 'pause_started') || isLostToB(e, events),
    );
    if (froze.kind !== 'lease_lost') {
      const woke = await waitForEvent(
        'A wakes',
        (e) => e.actor === 'A' && e.kind === 'pause_ended' && e.id > froze.id,
        point.pauseMs + STEP_TIMEOUT_MS,
      );
      const late = await waitForEvent(
        'A writes after its pause',
        (e) => e.actor === 'A' && isWrite(e) && e.id > woke.id,
      );
      if (story.waitForBMs) {
        // B writes once it holds the lease; if A kept it (a pause shorter than the lease), B waits in vain.
        await waitForEvent("B's write", (e) => e.actor === 'B' && isWrite(e), story.waitForBMs).catch(() => late);
      }
    }
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
