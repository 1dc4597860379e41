import 'server-only';
import type { WireEvent } from '../model/core/wire';
import type { LabInstance } from '../model/lab/lab-instance';
import type { LeaseClock } from '../model/lab/worker-clock';
import { runStory } from '../model/story/story-engine';
import { type Facts, factsFrom, walkthroughFor } from '../model/walkthrough/walkthrough';
import { DRIFTING_CLOCK_SETTINGS } from '../model/walkthrough/walkthrough-drifting-clock';
import { serverStoryDriver } from '../supervisor/story-driver';
import { getSupervisor } from '../supervisor/supervisor';
import { refuseIfInUse, tellRecordedRun } from './pause';
import type { ScenarioOutcome, StoryPrinter } from './story';

/*
 * The drifting clock with real worker processes, in the lab `drifting-clock` or, side by side,
 * `drifting-clock-fenced`: nothing freezes. A, whose clock runs 75 % slow, takes the lease and
 * writes; B starts and waits. By the database's clock A's lease runs out before A's clock says to
 * renew it; B takes over and writes; A, still believing, writes with its old token. Unfenced, the
 * write takes it: a lost update; fenced, the row's token refuses it. The story is told in the
 * walkthrough's words and judged by the checker, read from the events the processes recorded.
 */

const isWrite = (e: { kind: string }) => e.kind === 'write_accepted' || e.kind === 'write_rejected';

/** The walkthrough's facts, and the events they were read from (A's lease judged over is none of the walkthrough's). */
type Seen = Facts & { events: readonly WireEvent[] };

/** When A asks the database: its first write after B's, or its lease judged over. */
function lateOf(facts: Seen, afterB: number): WireEvent | undefined {
  return facts.events.find((e) => e.actor === 'A' && (isWrite(e) || e.kind === 'lease_lost') && e.id > afterB);
}

/**
 * `leaseClock: 'database'`: the same A asks the database, before each write, whether its lease still
 * runs. Its clock is as slow; it finds its lease over at its next write and does not send it.
 */
export async function runDriftScenario(
  lab: LabInstance,
  print: StoryPrinter,
  leaseClock: LeaseClock = 'own',
): Promise<ScenarioOutcome> {
  const supervisor = getSupervisor();
  await refuseIfInUse(lab);
  try {
    // The walkthrough's story, run by the one story engine; judging by the database's clock, to B's
    // write, then A's next write or its lease judged over.
    const asks = leaseClock === 'database';
    const story = serverStoryDriver(lab, (events): Seen => ({ ...factsFrom(events, lab.kind), events }));
    const steps = walkthroughFor(lab.kind);
    const toB = steps.slice(0, steps.findIndex((step) => step.id === 'b-takes-over') + 1);
    const settings = {
      ...DRIFTING_CLOCK_SETTINGS,
      A: { ...DRIFTING_CLOCK_SETTINGS.A, ...(asks ? { leaseClock } : {}) },
    };
    await runStory<Seen>(
      asks
        ? [
            ...toB,
            {
              action: { kind: 'none' },
              waitingFor: "A's next write, or its lease judged over",
              done: (f) => (f.writeB ? lateOf(f, f.writeB.id) !== undefined : false),
            },
          ]
        : steps,
      settings,
      story,
    );
    await supervisor.stopLab(lab);
    // The steps the run went through: judging by the database's clock, A writes no late write to tell.
    return await tellRecordedRun(lab, asks ? toB : steps, print);
  } finally {
    await supervisor.stopLab(lab);
  }
}
