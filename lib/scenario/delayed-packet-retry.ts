import 'server-only';
import { listEvents } from '../../db/events';
import type { WireEvent } from '../model/core/wire';
import type { LabInstance } from '../model/lab/lab-instance';
import { runStory } from '../model/story/story-engine';
import { DELAYED_PACKET_SETTINGS } from '../model/walkthrough/delayed-packet-settings';
import { walkthroughFor } from '../model/walkthrough/walkthrough';
import { serverStoryDriver } from '../supervisor/story-driver';
import { getSupervisor } from '../supervisor/supervisor';
import { refuseIfInUse, tellRecordedRun } from './pause';
import { recordedEvent, type ScenarioOutcome, type StoryPrinter } from './story';

/*
 * The delayed packet with a client timeout and a retry (`npm run scenario -- delayed-packet --retry`):
 * A's write is held on the wire; B takes over as soon as A's lease runs out, and writes; A's client,
 * unanswered for RETRY_AFTER_MS, gives up on that connection and sends the same write with the same
 * token on a new one; then the packet relay releases the first. Fenced: both attempts rejected. Unfenced: the
 * retry lands over B's value, and the original lands again after it: one write applied twice. Its own
 * steps drive the workers (the retry is waited for before the release); the run is told as every told
 * run is (told-run.ts): the delayed packet's walkthrough, whose words tell the retry from its events,
 * and the checker's verdict.
 */

/** Past A's expiry (at most 2 s after it sent) and B's write: the retry comes after the takeover. */
export const RETRY_AFTER_MS = 4_000;

const isWrite = (e: { kind: string }) => e.kind === 'write_accepted' || e.kind === 'write_rejected';

type RetryFacts = Partial<Record<'firstA' | 'writeB' | 'retried' | 'original', WireEvent>>;

/** What the story waits for, from the events since its reset: A's first write, B's write, A's retry, A's held write. */
function retryFacts(events: readonly WireEvent[]): RetryFacts {
  const find = (match: (e: WireEvent) => boolean, after = 0) => events.find((e) => e.id > after && match(e));
  const firstA = find((e) => e.actor === 'A' && e.kind === 'write_accepted');
  const writeB = find((e) => e.actor === 'B' && isWrite(e));
  const retried = writeB && find((e) => e.actor === 'A' && isWrite(e) && e.detail.attempt === 'retry', writeB.id);
  const original = retried && find((e) => e.actor === 'A' && isWrite(e) && e.detail.attempt === 'first', retried.id);
  return { firstA, writeB, retried, original };
}

export async function runDelayedPacketRetryScenario(lab: LabInstance, print: StoryPrinter): Promise<ScenarioOutcome> {
  const supervisor = getSupervisor();
  await refuseIfInUse(lab);
  try {
    const story = serverStoryDriver(lab, retryFacts);
    await runStory<RetryFacts>(
      [
        { action: { kind: 'reset' }, waitingFor: 'the lab to be reset', done: () => true },
        { action: { kind: 'start', worker: 'A' }, waitingFor: 'A writes', done: (f) => f.firstA !== undefined },
        { action: { kind: 'hold', worker: 'A' }, waitingFor: "A's next write to be held", done: () => true },
        // B waits for the lease, and takes it as soon as A's runs out.
        { action: { kind: 'start', worker: 'B' }, waitingFor: 'B writes', done: (f) => f.writeB !== undefined },
        { action: { kind: 'none' }, waitingFor: "A's retry", done: (f) => f.retried !== undefined },
        {
          action: { kind: 'release', worker: 'A' },
          waitingFor: "A's held write",
          done: (f) => f.original !== undefined,
        },
      ],
      { A: { ...DELAYED_PACKET_SETTINGS.A, retryAfterMs: RETRY_AFTER_MS }, B: DELAYED_PACKET_SETTINGS.B },
      story,
    );
    const facts = await story.facts();
    await supervisor.stopLab(lab);
    // The story ran as planned (else say what it ended without), and is told as every told run is.
    const events = await listEvents({ lab: lab.id });
    recordedEvent(events, facts.retried?.id, "A's retry");
    recordedEvent(events, facts.original?.id, "A's held write");
    return await tellRecordedRun(lab, walkthroughFor(lab.kind), print);
  } finally {
    await supervisor.stopLab(lab);
  }
}
