import 'server-only';
import { setTimeout as sleep } from 'node:timers/promises';
import { listEvents } from '../../db/events';
import type { LabEvent } from '../model/events';
import type { LabInstance } from '../model/lab-instance';
import { type WhatIf, whatIfWorkers } from '../model/what-if';
import { getSupervisor } from './supervisor';

/*
 * The pause story, run for real in a what-if fork's own lab with the fork's settings: new worker
 * processes A and B, as in the walkthrough. A takes the lease (a token newer than any the original
 * saw) and writes; A freezes in its critical window for the pause length; B starts and takes the
 * lease if and when A's lease runs out by the database's clock; A wakes and sends its late write.
 * What then happens is whatever the database decides: nothing here expects an outcome.
 */

const POLL_MS = 50;
/** Besides the pause and two leases: the workers' start-up on a busy machine. */
const SLACK_MS = 15_000;

const isWrite = (e: LabEvent) => e.kind === 'write_accepted' || e.kind === 'write_rejected';

async function waitFor(lab: LabInstance, what: string, timeoutMs: number, match: (e: LabEvent) => boolean) {
  const deadline = Date.now() + timeoutMs;
  let afterId = 0;
  while (Date.now() < deadline) {
    const events = await listEvents({ lab: lab.id, afterId });
    const found = events.find(match);
    if (found) return found;
    afterId = events.at(-1)?.id ?? afterId;
    await sleep(POLL_MS);
  }
  throw new Error(`the what-if run in ${lab.id} timed out waiting for ${what}`);
}

/** Runs the story to A's late write (and B's write, if B got the lease in time), then stops the lab's workers. */
export async function runWhatIf(lab: LabInstance, w: WhatIf): Promise<void> {
  const supervisor = getSupervisor();
  const workers = whatIfWorkers(w);
  const stepMs = SLACK_MS + 2 * w.leaseTtlMs;
  try {
    await supervisor.startWorker(lab, workers.A);
    await waitFor(lab, "A's first write", stepMs, (e) => e.actor === 'A' && isWrite(e));
    await supervisor.pause(lab, 'A', { mode: 'critical-window', seconds: w.pauseMs / 1000 });
    const froze = await waitFor(lab, 'A to freeze', stepMs, (e) => e.actor === 'A' && e.kind === 'pause_started');
    await supervisor.startWorker(lab, workers.B);
    const woke = await waitFor(
      lab,
      'A to wake',
      stepMs + w.pauseMs,
      (e) => e.actor === 'A' && e.kind === 'pause_ended' && e.id > froze.id,
    );
    await waitFor(lab, "A's late write", stepMs, (e) => e.actor === 'A' && isWrite(e) && e.id > woke.id);
    // B writes once it holds the lease; if A kept it (a pause shorter than the lease), B waits in vain.
    await waitFor(lab, "B's write", 2 * w.leaseTtlMs + 2 * w.renewEveryMs, (e) => e.actor === 'B' && isWrite(e)).catch(
      () => undefined,
    );
  } finally {
    await supervisor.stopLab(lab);
  }
}
