import 'server-only';
import { setTimeout as sleep } from 'node:timers/promises';
import { msUntil } from '../../db/database-clock';
import { listEvents } from '../../db/events';
import { readLabRow } from '../../db/lab-rows';
import { readLease } from '../../db/leases';
import { clientFaults } from '../model/checker/client-faults';
import { toWire } from '../model/core/wire';
import { type LabInstance, labTitle } from '../model/lab/lab-instance';
import { runStory } from '../model/story/story-engine';
import { factsFrom, type Step, walkthroughFor } from '../model/walkthrough/walkthrough';
import { serverStoryDriver } from '../supervisor/story-driver';
import { getSupervisor } from '../supervisor/supervisor';
import { type ExecLanes, withExecLanes } from './exec-lanes';
import type { ScenarioOutcome, StoryPrinter } from './story';
import { checkerVerdict, narratedSteps } from './told-run';

/*
 * The seed's pause scenario with real worker processes, in any lab: the lab's walkthrough story, run
 * by the one story engine. A takes the lease and writes; A is frozen in its critical window (after
 * its lease check, before its write); its lease runs out by the database's clock; B, with a newer
 * token, takes over and writes once; then A wakes and sends its write with its old token. The fenced
 * lab rejects it; each broken lab fails in its own way. The story is told in the walkthrough's words
 * and judged by the checker, both read from the events the processes recorded (told-run.ts).
 */

const LEASE_TTL_MS = 1_500;
const SCENARIO_SETTINGS = {
  A: { name: 'A', leaseTtlMs: LEASE_TTL_MS, renewEveryMs: 500, writeEveryMs: 300 },
  // B writes once and then stays quiet (renewing), so the row shows who wrote last.
  B: { name: 'B', leaseTtlMs: LEASE_TTL_MS, renewEveryMs: 500, writeEveryMs: 30_000 },
};

/** A person's programs as A or B (exec-lanes.ts), and the local worker role they join as. */
export type PauseExec = { lanes: ExecLanes; runner?: string | undefined; ownerUrl: string; password: string };

export async function runPauseScenario(
  lab: LabInstance,
  print: StoryPrinter,
  exec?: PauseExec,
): Promise<ScenarioOutcome> {
  const supervisor = getSupervisor();
  await refuseIfInUse(lab);
  // With a person's program, a story it stalls is ended at once: its wait stops with it.
  const stalled = new AbortController();
  const driver = serverStoryDriver(lab, (events) => factsFrom(events, lab.kind), exec ? stalled.signal : undefined);
  const story = exec ? withExecLanes(driver, lab, exec.lanes, exec, stalled) : undefined;
  try {
    // The walkthrough's story, run by the one story engine (faster workers: a shorter lease).
    const steps = walkthroughFor(lab.kind);
    await runStory(steps, SCENARIO_SETTINGS, story ?? driver);
    await supervisor.stopLab(lab);
    await story?.stop();
    const told = await tellRecordedRun(lab, steps, print);
    if (exec) await tellClientFaults(lab, Object.keys(exec.lanes), print);
    return told;
  } finally {
    await supervisor.stopLab(lab);
    await story?.stop();
  }
}

/**
 * The run as the database recorded it: the walkthrough's words for each step the run went through,
 * the row, and the checker's verdict (the exit code's), all read from the events and the row now.
 */
export async function tellRecordedRun(
  lab: LabInstance,
  steps: readonly Step[],
  print: StoryPrinter,
): Promise<ScenarioOutcome> {
  const events = (await listEvents({ lab: lab.id })).map(toWire);
  const stored = await readLabRow(lab);
  const row = stored && {
    table: stored.table,
    id: stored.id,
    value: stored.value,
    lastToken: Number(stored.lastToken),
  };
  const judged = checkerVerdict(labTitle(lab), lab.id, events, row);
  const lines = [...narratedSteps(steps, lab.kind, events, row), ...judged.lines];
  for (const line of lines) print(line);
  return { safe: judged.safe, verdict: judged.verdict, lines };
}

/** What each person's program did wrong, as its recorded events show it (lib/model/checker/client-faults.ts). */
async function tellClientFaults(lab: LabInstance, names: readonly string[], print: StoryPrinter): Promise<void> {
  const events = (await listEvents({ lab: lab.id })).map(toWire);
  for (const name of names) {
    const faults = clientFaults(events, name);
    if (faults.length === 0) {
      print({
        step: 'client-faults',
        worker: name,
        faults: [],
        text: `your client (${name}): nothing wrong the lab can see: it wrote only with tokens it was granted, stopped after a refusal, and never wrote under a lease that ran out while it ran.`,
      });
      continue;
    }
    print({ step: 'client-faults', worker: name, faults, text: `your client (${name}) did wrong:` });
    for (const fault of faults)
      print({ step: 'client-fault', worker: name, kind: fault.kind, text: `  ${fault.words}` });
  }
}

const IN_USE_GRACE_MS = 10_000;

/**
 * A scenario resets its lab. If another process (a running app) drives that lab right now, its
 * workers would fight this scenario's: say so instead of clobbering the lab. A lease left by
 * workers that are gone runs out by itself, so wait for that first (at most 10 s).
 */
export async function refuseIfInUse(lab: LabInstance): Promise<void> {
  const deadline = Date.now() + IN_USE_GRACE_MS;
  for (;;) {
    const lease = await readLease(lab.resource);
    const remainingMs = lease ? await msUntil(lease.expiresAt) : 0;
    if (!lease || remainingMs <= 0) return;
    if (Date.now() + remainingMs > deadline) {
      throw new LabInUseError(
        `the ${labTitle(lab)} lab is in use by another process (${lease.holder} holds its lease and keeps renewing it): reset it in the app, or stop the app, and run this again`,
      );
    }
    await sleep(Math.max(50, remainingMs + 20));
  }
}

export class LabInUseError extends Error {}
