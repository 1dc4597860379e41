import 'server-only';
import { setTimeout as sleep } from 'node:timers/promises';
import { listEvents } from '../../db/events';
import { readLabRow } from '../../db/lab-rows';
import { checkHistory } from '../model/checker';
import type { LabEvent } from '../model/events';
import { type GuardVerdict, guardErrorVerdict, guardVerdict } from '../model/guard-verdict';
import type { LabInstance } from '../model/lab-instance';
import { toWire, type WireEvent } from '../model/wire';
import { getSupervisor } from '../supervisor/supervisor';
import { runChaos } from './run-chaos';

/*
 * The attack on a trainee's guard (issue 15 part 1), with real worker processes: the pause story of
 * lib/scenario/pause.ts across the lab's digit boundary. The lab's tokens start at 9 (0033): A writes
 * with 9, is frozen in its critical window, B takes over with 10 and writes, A wakes and sends its
 * write with 9. Unlike the pause scenario it waits for each write whatever its outcome (a guard that
 * refuses the rightful holder is what some trainees write). The history checker then judges the run.
 * A guard that holds then faces seeded chaos aimed at the critical window (lib/chaos/run-chaos.ts):
 * the same seed for every trainee, so the room's guards face the same attack.
 */

export const GUARD_CHAOS = { seed: 15, workers: 3, seconds: 6 } as const;

const LEASE_TTL_MS = 1_500;
const A_SETTINGS = { name: 'A', leaseTtlMs: LEASE_TTL_MS, renewEveryMs: 500, writeEveryMs: 300 };
const B_SETTINGS = { name: 'B', leaseTtlMs: LEASE_TTL_MS, renewEveryMs: 500, writeEveryMs: 30_000 };

export type GuardAttack = { verdict: GuardVerdict; events: WireEvent[] };

const isWrite = (e: LabEvent) => e.kind === 'write_accepted' || e.kind === 'write_rejected';

const STEP_TIMEOUT_MS = 20_000;
const POLL_MS = 25;

/** The lab's first event that matches, as the pause scenario waits for it (lib/scenario/pause.ts). */
async function waitFor(lab: LabInstance, what: string, match: (event: LabEvent) => boolean): Promise<LabEvent> {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const found = (await listEvents({ lab: lab.id })).find(match);
    if (found) return found;
    await sleep(POLL_MS);
  }
  throw new Error(`the attack on the guard timed out waiting for: ${what}`);
}

export async function runGuardAttack(lab: LabInstance): Promise<GuardAttack> {
  const supervisor = getSupervisor();
  await supervisor.resetLab(lab);
  try {
    await supervisor.startWorker(lab, A_SETTINGS);
    await waitFor(lab, 'A writes', (e) => e.actor === 'A' && isWrite(e));
    await supervisor.pause(lab, 'A', { mode: 'critical-window' });
    const paused = await waitFor(lab, 'A freezes', (e) => e.actor === 'A' && e.kind === 'pause_started');
    await supervisor.startWorker(lab, B_SETTINGS);
    await waitFor(lab, 'B writes', (e) => e.actor === 'B' && isWrite(e));
    await supervisor.resume(lab, 'A');
    const woke = await waitFor(lab, 'A wakes', (e) => e.actor === 'A' && e.kind === 'pause_ended' && e.id > paused.id);
    await waitFor(lab, "A's late write", (e) => e.actor === 'A' && isWrite(e) && e.id > woke.id);
  } finally {
    await supervisor.stopLab(lab, 'the attack was over');
  }
  const events = (await listEvents({ lab: lab.id })).map(toWire);
  const row = await readLabRow(lab);
  const checked = checkHistory(events, row ? { value: row.value, lastToken: row.lastToken } : undefined);
  const paused = guardErrorVerdict(events) ?? guardVerdict(events, checked);
  if (!paused.passed) return { verdict: paused, events };
  const chaos = await runChaos({ lab, ...GUARD_CHAOS });
  const raised = guardErrorVerdict(chaos.events);
  if (raised)
    return {
      verdict: { ...raised, headline: `${raised.headline} (in ${GUARD_CHAOS.seconds} s of seeded chaos)` },
      events: chaos.events,
    };
  const verdict = guardVerdict(chaos.events, chaos.verdict);
  const { seed, seconds } = GUARD_CHAOS;
  return {
    verdict: verdict.passed
      ? {
          ...verdict,
          headline: `your guard held: no stale write got through the pause story, nor ${seconds} s of seeded chaos (seed ${seed}: ${chaos.totals.staleAttempts} stale attempts, all refused)`,
        }
      : { ...verdict, headline: `${verdict.headline} (in ${seconds} s of seeded chaos, seed ${seed})` },
    events: chaos.events,
  };
}
