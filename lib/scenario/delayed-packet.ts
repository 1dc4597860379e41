import 'server-only';
import { listEvents } from '../../db/events';
import { type LabInstance, labTitle } from '../model/lab/lab-instance';
import { runStory } from '../model/story/story-engine';
import { DELAYED_PACKET_SETTINGS } from '../model/walkthrough/delayed-packet-settings';
import { factsFrom, walkthroughFor } from '../model/walkthrough/walkthrough';
import { serverStoryDriver } from '../supervisor/story-driver';
import { getSupervisor } from '../supervisor/supervisor';
import { sayRowAndChecker } from './final-report';
import { refuseIfInUse } from './pause';
import { recordedEvent, type ScenarioOutcome, type StoryLine, type StoryPrinter } from './story';

/*
 * The delayed packet with real worker processes (the labs `delayed-packet`, fenced, and
 * `delayed-packet-unfenced`): nothing freezes. A takes the lease and writes through its packet relay;
 * the relay is told to hold A's connection, and A's next write stays on the wire, really unsent; A's
 * lease runs out by the database's clock; B takes over and writes; the relay releases, and
 * PostgreSQL receives A's write late, with A's old token. Fenced: rejected. Unfenced: a lost update.
 */

export async function runDelayedPacketScenario(lab: LabInstance, print: StoryPrinter): Promise<ScenarioOutcome> {
  const supervisor = getSupervisor();
  const lines: StoryLine[] = [];
  const say = (line: StoryLine) => {
    lines.push(line);
    print(line);
  };
  await refuseIfInUse(lab);
  try {
    // The walkthrough's story, run by the one story engine.
    const story = serverStoryDriver(lab, (events) => factsFrom(events, lab.kind));
    await runStory(walkthroughFor(lab.kind), DELAYED_PACKET_SETTINGS, story);
    const facts = await story.facts();
    await supervisor.stopLab(lab);

    const events = await listEvents({ lab: lab.id });
    const byId = (id: number | undefined, what: string) => recordedEvent(events, id, what);
    const grantA = byId(facts.grantA?.id, "A's grant");
    const firstA = byId(facts.firstWriteA?.id, "A's first write");
    const expiry = byId(facts.expiryA?.id, "A's lease running out");
    const writeB = byId(facts.writeB?.id, "B's write");
    const grantB = byId(
      events.filter((e) => e.actor === 'B' && e.kind === 'lease_acquired' && e.id < writeB.id).at(-1)?.id,
      "B's grant",
    );
    const lateA = byId(facts.lateWriteA?.id, "A's held write");
    const sentAt = events.filter((e) => e.actor === 'A' && e.kind === 'write_sent' && e.id < lateA.id).at(-1) ?? lateA;
    const heldMs = lateA.at.getTime() - sentAt.at.getTime();
    const expiresAt = typeof expiry.detail?.expiresAt === 'string' ? Date.parse(expiry.detail.expiresAt) : undefined;
    const lateByMs = expiresAt === undefined ? undefined : lateA.at.getTime() - expiresAt;

    say({
      step: 'first-holder-writes',
      text: `term ${grantA.token} token ${firstA.token} -> write accepted (A wrote ${JSON.stringify(firstA.detail?.value)} through its proxy)`,
      holder: 'A',
      term: grantA.token,
      token: firstA.token,
      outcome: 'accepted',
    });
    say({
      step: 'write-held',
      text: `the proxy holds A's connection: A sent ${JSON.stringify(sentAt.detail?.value)} with token ${sentAt.token}, and the bytes stay on the wire`,
      holder: 'A',
      token: sentAt.token,
      value: sentAt.detail?.value,
    });
    say({
      step: 'takeover-writes',
      text: `lease expires by the database's clock at ${String(expiry.detail?.expiresAt ?? '?')}, term ${grantB.token} token ${writeB.token} -> write ${writeB.kind === 'write_accepted' ? 'accepted' : 'rejected'} (B wrote ${JSON.stringify(writeB.detail?.value)})`,
      holder: 'B',
      term: grantB.token,
      token: writeB.token,
      outcome: writeB.outcome,
    });
    say({
      step: 'held-write-arrives',
      text: `released: PostgreSQL receives A's write ${heldMs} ms after A sent it${lateByMs === undefined ? '' : `, ${lateByMs} ms after A's lease ran out`} -> write token ${lateA.token} -> ${lateA.kind === 'write_accepted' ? 'accepted' : `rejected (stale: row holds token ${lateA.storedToken})`}`,
      holder: 'A',
      token: lateA.token,
      outcome: lateA.outcome,
      heldMs,
      ...(lateByMs === undefined ? {} : { lateByMs }),
    });
    const { row, checked } = await sayRowAndChecker(lab, events, say);
    const safe =
      checked.ok &&
      writeB.kind === 'write_accepted' &&
      lateA.kind === 'write_rejected' &&
      row?.value === writeB.detail?.value &&
      row?.lastToken === writeB.token;
    const verdict = safe
      ? `safe: A's delayed write with token ${lateA.token} arrived ${heldMs} ms late and was rejected; B's value (token ${writeB.token}) is intact`
      : lateA.kind === 'write_accepted'
        ? `UNSAFE (${labTitle(lab)}): lost update: B's value ${JSON.stringify(writeB.detail?.value)} (token ${writeB.token}) was overwritten by A's delayed write with token ${lateA.token}, held ${heldMs} ms on the wire${lateByMs === undefined ? '' : ` and received ${lateByMs} ms after A's lease ran out by the database's clock`}`
        : `UNSAFE (${labTitle(lab)}): the row does not hold the new holder's value`;
    say({ step: 'verdict', text: verdict, safe, lab: lab.id });
    return { safe, verdict, lines };
  } finally {
    await supervisor.stopLab(lab);
  }
}
