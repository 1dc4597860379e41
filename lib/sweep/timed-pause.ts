import 'server-only';
import { setTimeout as sleep } from 'node:timers/promises';
import { listEvents } from '../../db/events';
import type { LabEvent } from '../model/events';
import type { LabInstance } from '../model/lab-instance';
import { type SweepPoint, sweepWorkers } from '../model/sweep-grid';
import { toWire, type WireEvent } from '../model/wire';
import { getSupervisor } from '../supervisor/supervisor';

/*
 * The pause story, timed: A takes the lease and writes; B starts and waits for the lease; A is armed
 * to freeze in its critical window (after its lease check, before its write) for `pauseMs`, and
 * nothing else is done to either worker. Whether B takes over is up to the pause against the lease
 * TTL by the database's clock (and A's clock drift, which times A's renewals): unlike the story of
 * `npm run scenario -- pause` (lib/scenario/pause.ts), which holds A frozen until B has written.
 * The run ends once A has written after its freeze; what happened is read back from the events the
 * processes recorded (lib/model/sweep-cell.ts), not from what this function waited for.
 */

const STEP_TIMEOUT_MS = 20_000;
const POLL_MS = 25;

const isWrite = (e: LabEvent) => e.kind === 'write_accepted' || e.kind === 'write_rejected';

export type TimedPauseRecord = { events: WireEvent[]; failure?: string };

export async function runTimedPause(lab: LabInstance, point: SweepPoint): Promise<TimedPauseRecord> {
  const supervisor = getSupervisor();
  const { A, B } = sweepWorkers(point, lab.kind);
  let failure: string | undefined;
  try {
    await supervisor.startWorker(lab, A);
    await waitForEvent(lab, 'A writes', (e) => e.actor === 'A' && e.kind === 'write_accepted');
    // B joins and polls for the lease from now on; A's lease holds it off until it runs out.
    await supervisor.startWorker(lab, B);
    await supervisor.pause(lab, 'A', { mode: 'critical-window', seconds: point.pauseMs / 1000 });
    const froze = await waitForEvent(lab, 'A freezes', (e) => e.actor === 'A' && e.kind === 'pause_started');
    const woke = await waitForEvent(
      lab,
      'A wakes',
      (e) => e.actor === 'A' && e.kind === 'pause_ended' && e.id > froze.id,
      point.pauseMs + STEP_TIMEOUT_MS,
    );
    await waitForEvent(lab, 'A writes after its pause', (e) => e.actor === 'A' && isWrite(e) && e.id > woke.id);
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  } finally {
    await supervisor.stopLab(lab);
  }
  const events = (await listEvents({ lab: lab.id })).map(toWire);
  return failure === undefined ? { events } : { events, failure };
}

async function waitForEvent(
  lab: LabInstance,
  what: string,
  match: (event: LabEvent) => boolean,
  timeoutMs = STEP_TIMEOUT_MS,
): Promise<LabEvent> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = (await listEvents({ lab: lab.id })).find(match);
    if (found) return found;
    await sleep(POLL_MS);
  }
  throw new Error(`timed out waiting for: ${what}`);
}
