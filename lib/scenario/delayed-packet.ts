import 'server-only';
import type { LabInstance } from '../model/lab/lab-instance';
import { runStory } from '../model/story/story-engine';
import { DELAYED_PACKET_SETTINGS } from '../model/walkthrough/delayed-packet-settings';
import { factsFrom, walkthroughFor } from '../model/walkthrough/walkthrough';
import { serverStoryDriver } from '../supervisor/story-driver';
import { getSupervisor } from '../supervisor/supervisor';
import { refuseIfInUse, tellRecordedRun } from './pause';
import type { ScenarioOutcome, StoryPrinter } from './story';

/*
 * The delayed packet with real worker processes (the labs `delayed-packet`, fenced, and
 * `delayed-packet-unfenced`): nothing freezes. A takes the lease and writes through its packet relay;
 * the relay is told to hold A's connection, and A's next write stays on the wire, really unsent; A's
 * lease runs out by the database's clock; B takes over and writes; the relay releases, and
 * PostgreSQL receives A's write late, with A's old token. Fenced: rejected. Unfenced: a lost update.
 * Told as the pause is (told-run.ts): the walkthrough's words for each step, read from the recorded
 * events, and the checker's verdict.
 */

export async function runDelayedPacketScenario(lab: LabInstance, print: StoryPrinter): Promise<ScenarioOutcome> {
  const supervisor = getSupervisor();
  await refuseIfInUse(lab);
  try {
    // The walkthrough's story, run by the one story engine.
    const steps = walkthroughFor(lab.kind);
    const story = serverStoryDriver(lab, (events) => factsFrom(events, lab.kind));
    await runStory(steps, DELAYED_PACKET_SETTINGS, story);
    await supervisor.stopLab(lab);
    return await tellRecordedRun(lab, steps, print);
  } finally {
    await supervisor.stopLab(lab);
  }
}
