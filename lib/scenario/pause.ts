import 'server-only';
import { setTimeout as sleep } from 'node:timers/promises';
import { msUntil } from '../../db/database-clock';
import { listEvents } from '../../db/events';
import { readLease } from '../../db/leases';
import type { LabEvent } from '../model/core/events';
import { type LabInstance, labTitle } from '../model/lab/lab-instance';
import { runStory } from '../model/story/story-engine';
import { factsFrom, walkthroughFor } from '../model/walkthrough/walkthrough';
import { serverStoryDriver } from '../supervisor/story-driver';
import { getSupervisor } from '../supervisor/supervisor';
import { sayRowAndChecker } from './final-report';
import { recordedEvent, type ScenarioOutcome, type StoryLine, type StoryPrinter } from './story';

/*
 * The seed's pause scenario with real worker processes, in any lab: the lab's walkthrough story, run
 * by the one story engine. A takes the lease and writes; A is frozen in its critical window (after
 * its lease check, before its write); its lease runs out by the database's clock; B, with a newer
 * token, takes over and writes once; then A wakes and sends its write with its old token. The fenced lab rejects it; each broken lab fails in its own way. The story is read back
 * from the events the processes recorded, not from what this function expected.
 */

const LEASE_TTL_MS = 1_500;
const SCENARIO_SETTINGS = {
  A: { name: 'A', leaseTtlMs: LEASE_TTL_MS, renewEveryMs: 500, writeEveryMs: 300 },
  // B writes once and then stays quiet (renewing), so the row shows who wrote last.
  B: { name: 'B', leaseTtlMs: LEASE_TTL_MS, renewEveryMs: 500, writeEveryMs: 30_000 },
};

export async function runPauseScenario(lab: LabInstance, print: StoryPrinter): Promise<ScenarioOutcome> {
  const supervisor = getSupervisor();
  const lines: StoryLine[] = [];
  const say = (line: StoryLine) => {
    lines.push(line);
    print(line);
  };
  await refuseIfInUse(lab);
  try {
    // The walkthrough's story, run by the one story engine (faster workers: a shorter lease).
    const story = serverStoryDriver(lab, (events) => factsFrom(events, lab.kind));
    await runStory(walkthroughFor(lab.kind), SCENARIO_SETTINGS, story);
    const facts = await story.facts();
    await supervisor.stopLab(lab);

    const events = await listEvents({ lab: lab.id });
    const firstA = recordedEvent(events, facts.firstWriteA?.id, "A's first write");
    const writeB = recordedEvent(events, facts.writeB?.id, "B's write");
    const lateA = recordedEvent(events, facts.lateWriteA?.id, "A's late write");
    const termOf = (write: LabEvent) =>
      events.filter((e) => e.actor === write.actor && e.kind === 'lease_acquired' && e.id < write.id).at(-1)?.token;
    say({
      step: 'first-holder-writes',
      text: `term ${termOf(firstA)} token ${firstA.token} -> write accepted (A wrote ${JSON.stringify(firstA.detail?.value)})`,
      holder: 'A',
      term: termOf(firstA),
      token: firstA.token,
      outcome: 'accepted',
    });
    say({
      step: 'takeover-writes',
      text: `lease expires, term ${termOf(writeB)} token ${writeB.token} -> write ${outcomeText(writeB)} (B ${writeB.kind === 'write_accepted' ? 'wrote' : 'tried'} ${JSON.stringify(writeB.detail?.value)})`,
      holder: 'B',
      term: termOf(writeB),
      token: writeB.token,
      outcome: writeB.outcome,
      ...(writeB.storedToken === undefined ? {} : { storedToken: writeB.storedToken }),
    });
    say({
      step: 'old-holder-resumes',
      text: `old holder resumes -> write token ${lateA.token} -> ${outcomeText(lateA)}${lateA.kind === 'write_accepted' ? ` (A wrote ${JSON.stringify(lateA.detail?.value)} over the newer value)` : ''}`,
      holder: 'A',
      token: lateA.token,
      outcome: lateA.outcome,
      ...(lateA.storedToken === undefined ? {} : { storedToken: lateA.storedToken }),
    });
    const { row, checked: verdictOfChecker } = await sayRowAndChecker(lab, events, say);
    const safe =
      verdictOfChecker.ok &&
      lateA.id > writeB.id &&
      writeB.kind === 'write_accepted' &&
      lateA.kind === 'write_rejected' &&
      row?.value === writeB.detail?.value &&
      row?.lastToken === writeB.token;
    const verdict = safe
      ? `safe: the stale write with token ${lateA.token} was rejected and B's value (token ${writeB.token}) is intact`
      : `UNSAFE (${labTitle(lab)}): ${explain(writeB, lateA)}`;
    say({ step: 'verdict', text: verdict, safe, lab: lab.id });
    return { safe, verdict, lines };
  } finally {
    await supervisor.stopLab(lab);
  }
}

function outcomeText(write: LabEvent): string {
  return write.kind === 'write_accepted' ? 'accepted' : `rejected (stale: row holds token ${write.storedToken})`;
}

function explain(writeB: LabEvent, lateA: LabEvent): string {
  if (writeB.kind === 'write_rejected') {
    return `the new holder's write with token ${writeB.token} was rejected as stale against token ${writeB.storedToken}, and the old holder's token ${lateA.token} ${lateA.kind === 'write_accepted' ? 'won' : 'was rejected too'}`;
  }
  if (lateA.kind === 'write_accepted' && lateA.token === writeB.token) {
    // The same-token-takeover lab: B was handed A's token, and <= lets both holders write.
    return `lost update: B's value ${JSON.stringify(writeB.detail?.value)} (token ${writeB.token}) was overwritten by A with the same token ${lateA.token}: the takeover handed B A's token instead of minting one`;
  }
  if (lateA.kind === 'write_accepted') {
    return `lost update: B's value ${JSON.stringify(writeB.detail?.value)} (token ${writeB.token}) was overwritten by A with token ${lateA.token}`;
  }
  return 'the row does not hold the new holder’s value';
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
