import 'server-only';
import { listEvents } from '../../db/events';
import { stageGuardToken } from '../../db/your-guard';
import type { LabEvent } from '../model/events';
import type { StaleWriter } from '../model/guard-probes';
import type { LabInstance } from '../model/lab-instance';
import { toWire, type WireEvent } from '../model/wire';
import { getSupervisor } from '../supervisor/supervisor';
import { waitForLabEvent } from '../supervisor/wait-for-event';

/*
 * The pause story the attack on a trainee's guard tells first, with real worker processes: each
 * stale writer in turn takes the lease (its token staged first: lib/model/guard-probes.ts), writes,
 * and is frozen in its critical window; then B takes over with the newest token and writes; then
 * each stale writer wakes, oldest first, and sends the write it held, with its old token and its
 * value. With no constants in the statement that is the lab's story: A writes with 9, freezes, B
 * takes over with 10 and writes, A wakes and writes with 9. It waits for each write whatever its
 * outcome (a guard that refuses the rightful holder is what some trainees write).
 */

const LEASE_TTL_MS = 1_500;
const STALE_SETTINGS = { leaseTtlMs: LEASE_TTL_MS, renewEveryMs: 500, writeEveryMs: 300 };
const B_SETTINGS = { name: 'B', leaseTtlMs: LEASE_TTL_MS, renewEveryMs: 500, writeEveryMs: 30_000 };
/** The stale writers' names: A as in the lab's story, then past B. */
const STALE_NAMES = ['A', 'C', 'D', 'E', 'F'];

const isWrite = (e: LabEvent) => e.kind === 'write_accepted' || e.kind === 'write_rejected';

export async function runGuardStory(lab: LabInstance, writers: readonly StaleWriter[]): Promise<WireEvent[]> {
  const supervisor = getSupervisor();
  await supervisor.resetLab(lab);
  const frozen: Array<{ name: string; pausedAt: number }> = [];
  try {
    for (const [i, writer] of writers.slice(0, STALE_NAMES.length).entries()) {
      const name = STALE_NAMES[i] as string;
      // Before the writer starts: the lease is held by the one frozen before it, so no grant falls between.
      await stageGuardToken(lab.id, writer.token);
      await supervisor.startWorker(lab, {
        name,
        ...STALE_SETTINGS,
        ...(writer.value ? { writeValue: writer.value } : {}),
      });
      await waitForLabEvent(lab, `${name} writes`, (e) => e.actor === name && isWrite(e));
      await supervisor.pause(lab, name, { mode: 'critical-window' });
      const paused = await waitForLabEvent(
        lab,
        `${name} freezes`,
        (e) => e.actor === name && e.kind === 'pause_started',
      );
      frozen.push({ name, pausedAt: paused.id });
    }
    await supervisor.startWorker(lab, B_SETTINGS);
    await waitForLabEvent(lab, 'B writes', (e) => e.actor === 'B' && isWrite(e));
    for (const { name, pausedAt } of frozen) {
      await supervisor.resume(lab, name);
      const woke = await waitForLabEvent(
        lab,
        `${name} wakes`,
        (e) => e.actor === name && e.kind === 'pause_ended' && e.id > pausedAt,
      );
      await waitForLabEvent(lab, `${name}'s late write`, (e) => e.actor === name && isWrite(e) && e.id > woke.id);
    }
  } finally {
    await supervisor.stopLab(lab, 'the attack was over');
  }
  return (await listEvents({ lab: lab.id })).map(toWire);
}
