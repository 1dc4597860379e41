import 'server-only';
import { listEvents } from '../../db/events';
import { readLabRow } from '../../db/lab-rows';
import type { LabEvent } from '../model/core/events';
import type { WireEvent } from '../model/core/wire';
import { toWire } from '../model/core/wire';
import { type LabInstance, labTitle } from '../model/lab/lab-instance';
import { runStory } from '../model/story/story-engine';
import { DELAYED_PACKET_SETTINGS } from '../model/walkthrough/delayed-packet-settings';
import { serverStoryDriver } from '../supervisor/story-driver';
import { getSupervisor } from '../supervisor/supervisor';
import { refuseIfInUse } from './pause';
import { recordedEvent, type ScenarioOutcome, type StoryLine, type StoryPrinter } from './story';
import { checkerVerdict } from './told-run';

/*
 * The delayed packet with a client timeout and a retry (`npm run scenario -- delayed-packet --retry`):
 * A's write is held on the wire; B takes over as soon as A's lease runs out, and writes; A's client,
 * unanswered for RETRY_AFTER_MS, gives up on that connection and sends the same write with the same
 * token on a new one; then the packet relay releases the first. Fenced: both attempts rejected. Unfenced: the
 * retry lands over B's value, and the original lands again after it: one write applied twice. No
 * walkthrough tells this story (free play runs it), so its steps are said here; the verdict is the
 * checker's, as every told run's.
 */

/** Past A's expiry (at most 2 s after it sent) and B's write: the retry comes after the takeover. */
export const RETRY_AFTER_MS = 4_000;

const isWrite = (e: { kind: string }) => e.kind === 'write_accepted' || e.kind === 'write_rejected';

type RetryFacts = Partial<Record<'grantA' | 'firstA' | 'writeB' | 'retried' | 'original', WireEvent>>;

/** The story's facts from the events since its reset: A's grant and first write, B's write, A's retry, A's held write. */
function retryFacts(events: readonly WireEvent[]): RetryFacts {
  const find = (match: (e: WireEvent) => boolean, after = 0) => events.find((e) => e.id > after && match(e));
  const grantA = find((e) => e.actor === 'A' && e.kind === 'lease_acquired');
  const firstA = find((e) => e.actor === 'A' && e.kind === 'write_accepted');
  const writeB = find((e) => e.actor === 'B' && isWrite(e));
  const retried = writeB && find((e) => e.actor === 'A' && isWrite(e) && e.detail.attempt === 'retry', writeB.id);
  const original = retried && find((e) => e.actor === 'A' && isWrite(e) && e.detail.attempt === 'first', retried.id);
  return { grantA, firstA, writeB, retried, original };
}
const outcomeOf = (e: LabEvent) =>
  e.kind === 'write_accepted' ? 'accepted' : `rejected (stale: row holds token ${e.storedToken})`;

export async function runDelayedPacketRetryScenario(lab: LabInstance, print: StoryPrinter): Promise<ScenarioOutcome> {
  const supervisor = getSupervisor();
  const lines: StoryLine[] = [];
  const say = (line: StoryLine) => {
    lines.push(line);
    print(line);
  };
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

    const events = await listEvents({ lab: lab.id });
    const grantA = recordedEvent(events, facts.grantA?.id, "A's grant");
    const firstA = recordedEvent(events, facts.firstA?.id, "A's first write");
    const writeB = recordedEvent(events, facts.writeB?.id, "B's write");
    const retried = recordedEvent(events, facts.retried?.id, "A's retry");
    const original = recordedEvent(events, facts.original?.id, "A's held write");
    const sent = events.filter((e) => e.actor === 'A' && e.kind === 'write_sent' && e.id < writeB.id).at(-1);
    say({
      step: 'first-holder-writes',
      text: `term ${grantA.token} token ${firstA.token} -> write accepted (A wrote ${JSON.stringify(firstA.detail?.value)} through its proxy)`,
      holder: 'A',
      token: firstA.token,
      outcome: 'accepted',
    });
    say({
      step: 'write-held',
      text: `the proxy holds A's connection: A sent ${JSON.stringify(sent?.detail?.value)} with token ${sent?.token}; B takes over when A's lease runs out and writes ${JSON.stringify(writeB.detail?.value)} with token ${writeB.token} -> ${outcomeOf(writeB)}`,
      token: writeB.token,
      outcome: writeB.outcome,
    });
    say({
      step: 'retry',
      text: `A's client gives up after ${RETRY_AFTER_MS} ms and sends ${JSON.stringify(retried.detail?.value)} again with token ${retried.token} on a new connection -> ${outcomeOf(retried)}`,
      holder: 'A',
      token: retried.token,
      outcome: retried.outcome,
    });
    say({
      step: 'held-write-arrives',
      text: `released: PostgreSQL receives the first ${JSON.stringify(original.detail?.value)} too, ${original.at.getTime() - (sent?.at.getTime() ?? original.at.getTime())} ms after A sent it -> ${outcomeOf(original)}`,
      holder: 'A',
      token: original.token,
      outcome: original.outcome,
    });
    // The row, and the verdict: the checker's, as every told run's (told-run.ts).
    const stored = await readLabRow(lab);
    const row = stored && {
      table: stored.table,
      id: stored.id,
      value: stored.value,
      lastToken: Number(stored.lastToken),
    };
    const judged = checkerVerdict(labTitle(lab), lab.id, events.map(toWire), row);
    for (const line of judged.lines) say(line);
    const { safe, verdict } = judged;
    return { safe, verdict, lines };
  } finally {
    await supervisor.stopLab(lab);
  }
}
