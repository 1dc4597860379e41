import 'server-only';
import { listEvents } from '../../db/events';
import type { WireEvent } from '../model/core/wire';
import { type LabInstance, labTitle } from '../model/lab/lab-instance';
import type { LeaseClock } from '../model/lab/worker-clock';
import { runStory } from '../model/story/story-engine';
import { type Facts, factsFrom, walkthroughFor } from '../model/walkthrough/walkthrough';
import { DRIFTING_CLOCK_SETTINGS } from '../model/walkthrough/walkthrough-drifting-clock';
import { serverStoryDriver } from '../supervisor/story-driver';
import { getSupervisor } from '../supervisor/supervisor';
import { sayRowAndChecker } from './final-report';
import { refuseIfInUse } from './pause';
import { recordedEvent, type ScenarioOutcome, type StoryLine, type StoryPrinter } from './story';

/*
 * The drifting clock with real worker processes, in the lab `drifting-clock` or, side by side,
 * `drifting-clock-fenced`: nothing freezes. A, whose clock runs 75 % slow, takes the lease and
 * writes; B starts and waits. By the database's clock A's lease runs out before A's clock says to
 * renew it; B takes over and writes; A, still believing, writes with its old token. Unfenced, the
 * write takes it: a lost update; fenced, the row's token refuses it. The story is read back from
 * the events the processes recorded, with the walkthrough's settings.
 */

const isWrite = (e: { kind: string }) => e.kind === 'write_accepted' || e.kind === 'write_rejected';

/** The walkthrough's facts, and the events they were read from (A's lease judged over is none of the walkthrough's). */
type Seen = Facts & { events: readonly WireEvent[] };

/** A's first write after B's (or, when A asks the database, its lease judged over), from the facts' writes and events. */
function lateOf(facts: Seen, afterB: number, asks: boolean): WireEvent | undefined {
  if (!asks) return facts.lateWriteA;
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
  const lines: StoryLine[] = [];
  const say = (line: StoryLine) => {
    lines.push(line);
    print(line);
  };
  await refuseIfInUse(lab);
  try {
    // The walkthrough's story, run by the one story engine, to B's write; then A's late write (the
    // walkthrough's next step), or, judging by the database's clock, A's write or its lease judged over.
    const asks = leaseClock === 'database';
    const story = serverStoryDriver(lab, (events): Seen => ({ ...factsFrom(events, lab.kind), events }));
    const steps = walkthroughFor(lab.kind);
    const toB = steps.slice(0, steps.findIndex((step) => step.id === 'b-takes-over') + 1);
    const settings = {
      ...DRIFTING_CLOCK_SETTINGS,
      A: { ...DRIFTING_CLOCK_SETTINGS.A, ...(asks ? { leaseClock } : {}) },
    };
    await runStory<Seen>(
      [
        ...toB,
        {
          action: { kind: 'none' },
          waitingFor: asks ? "A's next write, or its lease judged over" : "A's next write",
          done: (f) => (f.writeB ? lateOf(f, f.writeB.id, asks) !== undefined : false),
        },
      ],
      settings,
      story,
    );
    const facts = await story.facts();
    await supervisor.stopLab(lab);

    const events = await listEvents({ lab: lab.id });
    const byId = (id: number | undefined, what: string) => recordedEvent(events, id, what);
    const grantA = byId(facts.grantA?.id, "A's grant");
    const writeB = byId(facts.writeB?.id, "B's write");
    const grantB = byId(
      events.filter((e) => e.actor === 'B' && e.kind === 'lease_acquired' && e.id < writeB.id).at(-1)?.id,
      "B's grant",
    );
    const lateA = byId(lateOf(facts, writeB.id, asks)?.id, "A's late write");
    const heldA =
      events.filter((e) => e.actor === 'A' && e.kind === 'lease_acquired' && e.id < grantB.id).at(-1) ?? grantA;
    const firstA = events.find((e) => e.actor === 'A' && e.kind === 'write_accepted' && e.id > heldA.id);
    const expiry = events.find((e) => e.actor === 'A' && e.kind === 'lease_expired' && e.token === heldA.token);
    const sent = events.filter((e) => e.actor === 'A' && e.kind === 'write_sent' && e.id < lateA.id).at(-1);
    const expiresAt = typeof expiry?.detail?.expiresAt === 'string' ? Date.parse(expiry.detail.expiresAt) : undefined;
    const lateByMs = expiresAt === undefined ? undefined : lateA.at.getTime() - expiresAt;
    const slow = DRIFTING_CLOCK_SETTINGS.A.clockSlowPercent;

    say({
      step: 'first-holder-writes',
      text: `term ${heldA.token} token ${firstA?.token} -> write accepted (A wrote ${JSON.stringify(firstA?.detail?.value)}; A's clock runs ${slow} % slow)`,
      holder: 'A',
      term: heldA.token,
      token: firstA?.token,
      outcome: 'accepted',
      clockSlowPercent: slow,
    });
    say({
      step: 'takeover-writes',
      text: `lease expires by the database's clock at ${expiry?.detail?.expiresAt ?? '?'}, term ${grantB.token} token ${writeB.token} -> write ${writeB.kind === 'write_accepted' ? 'accepted' : 'rejected'} (B wrote ${JSON.stringify(writeB.detail?.value)})`,
      holder: 'B',
      term: grantB.token,
      token: writeB.token,
      outcome: writeB.outcome,
      ...(expiry?.detail?.expiresAt ? { expiresAt: expiry.detail.expiresAt } : {}),
    });
    if (lateA.kind === 'lease_lost') {
      say({
        step: 'slow-clock-asks',
        text: `A asks the database before its next write: ${String(lateA.detail?.reason ?? '?')} -> A does not write`,
        holder: 'A',
        token: lateA.token,
        outcome: 'not-sent',
      });
      const { row, checked } = await sayRowAndChecker(lab, events, say);
      const safe = checked.ok && row?.value === writeB.detail?.value && row?.lastToken === writeB.token;
      const verdict = safe
        ? `safe: A judged its lease by the database's clock and did not write after it ran out (A's clock runs ${slow} % slow); B's value (token ${writeB.token}) is intact`
        : `UNSAFE (${labTitle(lab)}): the row does not hold the new holder's value`;
      say({ step: 'verdict', text: verdict, safe, lab: lab.id });
      return { safe, verdict, lines };
    }
    say({
      step: 'slow-clock-writes',
      text: `A's clock reads ${String(sent?.detail?.myClock ?? '?')}, its lease runs until ${String(sent?.detail?.believedUntil ?? '?')} by it -> write token ${lateA.token} -> ${lateA.kind === 'write_accepted' ? 'accepted' : `rejected (stale: row holds token ${lateA.storedToken})`}${lateByMs === undefined ? '' : `, ${lateByMs} ms after the database's expiry`}`,
      holder: 'A',
      token: lateA.token,
      outcome: lateA.outcome,
      ...(lateByMs === undefined ? {} : { lateByMs }),
      ...(sent?.detail?.myClock ? { myClock: sent.detail.myClock, believedUntil: sent.detail.believedUntil } : {}),
    });
    const { row, checked: verdictOfChecker } = await sayRowAndChecker(lab, events, say);
    const safe =
      verdictOfChecker.ok &&
      writeB.kind === 'write_accepted' &&
      lateA.kind === 'write_rejected' &&
      row?.value === writeB.detail?.value &&
      row?.lastToken === writeB.token;
    const verdict = safe
      ? `safe: A's late write with token ${lateA.token} was rejected and B's value (token ${writeB.token}) is intact`
      : lateA.kind === 'write_accepted'
        ? `UNSAFE (${labTitle(lab)}): lost update: B's value ${JSON.stringify(writeB.detail?.value)} (token ${writeB.token}) was overwritten by A with token ${lateA.token}${lateByMs === undefined ? '' : `, ${lateByMs} ms after A's lease ran out by the database's clock`} (A's clock runs ${slow} % slow)`
        : `UNSAFE (${labTitle(lab)}): the row does not hold the new holder's value`;
    say({ step: 'verdict', text: verdict, safe, lab: lab.id });
    return { safe, verdict, lines };
  } finally {
    await supervisor.stopLab(lab);
  }
}
