import { DELAYED_PACKET_SETTINGS } from './delayed-packet-settings';
import type { WorkerSettings } from './lab-inputs';
import { hasPacketProxy, LABS, type LabId } from './lab-kinds';
import { isOutcome, t, time, value } from './narration';
import { delayedPacketFacts, delayedPacketSteps } from './walkthrough-delayed-packet';
import { DRIFTING_CLOCK_SETTINGS, driftingClockFacts, driftingClockSteps } from './walkthrough-drifting-clock';
import type { WireEvent } from './wire';

/*
 * The guided walkthrough "The pause", as data: what each step does to the real lab, which event
 * tells that it happened, and what to say about it, with the tokens the database really gave.
 * Pure: the page runs the actions and feeds the events back in.
 */

export const WALKTHROUGH_SETTINGS = {
  A: { name: 'A', leaseTtlMs: 3_000, renewEveryMs: 1_000, writeEveryMs: 700 },
  // B writes once and then renews quietly, so the table shows who wrote last.
  B: { name: 'B', leaseTtlMs: 3_000, renewEveryMs: 1_000, writeEveryMs: 30_000 },
} as const;

/** The two workers' settings in a lab's walkthrough: the pause story's, or the drifting clock's. */
export function walkthroughSettings(lab: LabId): Record<'A' | 'B', WorkerSettings> {
  if (hasPacketProxy(lab)) return DELAYED_PACKET_SETTINGS;
  return lab === 'drifting-clock' ? DRIFTING_CLOCK_SETTINGS : WALKTHROUGH_SETTINGS;
}

export type StepAction =
  | { kind: 'reset' }
  | { kind: 'start'; worker: 'A' | 'B' }
  /** A starts; once it holds the lease, B starts and waits for it (the drifting clock: nothing freezes). */
  | { kind: 'start-both' }
  /** Until the walkthrough resumes it: the story must not depend on how long a reader lingers. */
  | { kind: 'freeze-before-write'; worker: 'A' }
  | { kind: 'resume'; worker: 'A' }
  /** The delayed-packet labs: the proxy holds A's connection from its next write on, then releases it. */
  | { kind: 'hold'; worker: 'A' }
  | { kind: 'release'; worker: 'A' }
  | { kind: 'none' };

export type Facts = {
  tokenA?: number;
  tokenB?: number;
  firstWriteA?: WireEvent;
  pauseA?: WireEvent;
  expiryA?: WireEvent;
  writeB?: WireEvent;
  wokeA?: WireEvent;
  lateWriteA?: WireEvent;
  /** The drifting clock's story: A's grant, B's start, what A read on its clock when it sent its late write. */
  grantA?: WireEvent;
  startB?: WireEvent;
  sentLateA?: WireEvent;
};

export type Step = {
  id: string;
  title: string;
  action: StepAction;
  /** What the page waits for after the action, in words. */
  waitingFor: string;
  /** What the step will do, for a page that shows it before it has run (a deep link): no tokens yet. */
  preview: string;
  done: (facts: Facts) => boolean;
  narrate: (facts: Facts) => string;
};

/**
 * What happened so far, read from the events of this run (ids after the run began), for the story
 * the lab tells: the pause, the drifting clock, or the delayed packet.
 */
export function factsFrom(events: readonly WireEvent[], lab?: LabId): Facts {
  if (lab !== undefined && hasPacketProxy(lab)) return delayedPacketFacts(events);
  return lab === 'drifting-clock' ? driftingClockFacts(events) : pauseFacts(events);
}

function pauseFacts(events: readonly WireEvent[]): Facts {
  const find = (match: (e: WireEvent) => boolean, after = 0) => events.find((e) => e.id > after && match(e));
  const grantA = find((e) => e.actor === 'A' && e.kind === 'lease_acquired');
  const grantB = find((e) => e.actor === 'B' && e.kind === 'lease_acquired');
  // The walkthrough's freeze is the one in A's critical window: a pause the trainer gave A by hand
  // (until resumed, or for a while) is not the story's, and neither is a lease that ran out during it.
  const pauseA = find((e) => e.actor === 'A' && e.kind === 'pause_started' && e.detail.trigger === 'critical-window');
  const wokeA = pauseA && find((e) => e.actor === 'A' && e.kind === 'pause_ended', pauseA.id);
  const facts: Facts = {
    ...(grantA?.token === undefined ? {} : { tokenA: grantA.token }),
    ...(grantB?.token === undefined ? {} : { tokenB: grantB.token }),
  };
  const set = <K extends keyof Facts>(key: K, value: Facts[K] | undefined) => {
    if (value !== undefined) facts[key] = value;
  };
  set(
    'firstWriteA',
    find((e) => e.actor === 'A' && e.kind === 'write_accepted'),
  );
  set('pauseA', pauseA);
  const expiryA = pauseA && find((e) => e.actor === 'A' && e.kind === 'lease_expired', pauseA.id);
  set('expiryA', expiryA);
  set('writeB', expiryA && find((e) => e.actor === 'B' && isOutcome(e), expiryA.id));
  set('wokeA', wokeA);
  set('lateWriteA', wokeA && find((e) => e.actor === 'A' && isOutcome(e), wokeA.id));
  return facts;
}

export function walkthroughFor(lab: LabId): Step[] {
  if (lab === 'drifting-clock') return driftingClockSteps();
  if (hasPacketProxy(lab)) return delayedPacketSteps(lab === 'delayed-packet');
  const definition = LABS[lab];
  const fenced = lab === 'fenced';
  // The takeover without a new token: B is handed A's token, and the <= check lets both write.
  const sameToken = (f: Facts) => lab === 'same-token-takeover' && f.tokenB !== undefined && f.tokenB === f.tokenA;
  return [
    {
      id: 'setup',
      title: fenced ? 'Two workers, one row' : `${definition.title}: two workers, one row`,
      action: { kind: 'reset' },
      waitingFor: 'the lab to be reset',
      preview: 'The lab is reset: its workers stop and its history is cleared.',
      done: () => true,
      narrate: () =>
        fenced
          ? `Two worker processes, A and B, will take turns holding a lease on row ${definition.rowId} of ${definition.table}. Every grant carries a token from the database sequence write_epoch, and the row keeps the highest token that wrote it. The lab has been reset: no workers, no history.`
          : `The same story, with one mistake: ${definition.summary} The workers write row ${definition.rowId} of ${definition.table}, a table with no guard. The lab has been reset.`,
    },
    {
      id: 'a-writes',
      title: 'A takes the lease and writes',
      action: { kind: 'start', worker: 'A' },
      waitingFor: "A's first accepted write",
      preview: 'Worker A starts, takes the lease with a token from the database, and writes.',
      done: (f) => f.firstWriteA !== undefined,
      narrate: (f) =>
        `term ${t(f.tokenA)} token ${t(f.firstWriteA?.token)} → write accepted. A is a real process: it got the lease with token ${t(f.tokenA)} and wrote ${value(f.firstWriteA)}. It renews its lease every second and writes again every 0.7 s.`,
    },
    {
      id: 'a-freezes',
      title: 'A freezes',
      action: { kind: 'freeze-before-write', worker: 'A' },
      waitingFor: 'A to freeze before its next write',
      preview: 'A checks its lease and freezes right after, before its next write reaches the database.',
      done: (f) => f.pauseA !== undefined,
      narrate: (f) =>
        `A checked its lease ("${String(f.pauseA?.detail.belief ?? '…')}") and froze right after, before its write reached the database, like a stop-the-world GC pause. Its process runs nothing now: no timers, no renewals.`,
    },
    {
      id: 'a-expires',
      title: "A's lease expires",
      action: { kind: 'none' },
      waitingFor: "A's lease to run out by the database's clock",
      preview: "While A is frozen, its lease runs out by the database's clock.",
      done: (f) => f.expiryA !== undefined,
      narrate: (f) =>
        `By the database's clock, A's lease ran out at ${time(f.expiryA?.detail.expiresAt as string | undefined)}. A does not know: it is frozen, and still believes it holds token ${t(f.tokenA)} (the hatched band).`,
    },
    {
      id: 'b-takes-over',
      title: 'B takes over',
      action: { kind: 'start', worker: 'B' },
      waitingFor: "B's lease and B's write",
      preview: 'Worker B starts, takes the lease with a newer token, and writes.',
      done: (f) => f.writeB !== undefined,
      narrate: (f) =>
        f.writeB?.kind === 'write_accepted' && sameToken(f)
          ? `lease expires, term ${t(f.tokenB)} token ${t(f.writeB.token)} → write accepted. B took over A's expired lease, and the lease service handed it A's token ${t(f.tokenA)} instead of minting a new one. B wrote ${value(f.writeB)}: the row holds token ${t(f.writeB.token)}, the very token A still holds.`
          : f.writeB?.kind === 'write_accepted'
            ? `lease expires, term ${t(f.tokenB)} token ${t(f.writeB.token)} → write accepted. B got a new token from the sequence and wrote ${value(f.writeB)}. The row now holds token ${t(f.writeB.token)}.`
            : `lease expires, term ${t(f.tokenB)} token ${t(f.writeB?.token)} → write rejected (stale: row holds token ${t(f.writeB?.storedToken)}). B is the rightful holder, with the newer token, and it was turned away: ${definition.failure}.`,
    },
    {
      id: 'a-wakes',
      title: 'A wakes up',
      action: { kind: 'resume', worker: 'A' },
      waitingFor: "A's late write",
      preview: 'A wakes up and sends its late write with its old token.',
      done: (f) => f.lateWriteA !== undefined,
      narrate: (f) =>
        f.lateWriteA?.kind === 'write_rejected'
          ? `old holder resumes → write token ${t(f.lateWriteA.token)} → rejected (stale: row holds token ${t(f.lateWriteA.storedToken)}). A sent its write with its old token; the database compared it with the row's token in the same UPDATE and changed nothing.`
          : sameToken(f)
            ? `old holder resumes → write token ${t(f.lateWriteA?.token)} → accepted. A wrote ${value(f.lateWriteA)} with token ${t(f.lateWriteA?.token)}, the same token B was handed, over the newer value: last_token ${t(f.tokenB)} <= ${t(f.lateWriteA?.token)} holds for both holders, so the fenced write cannot tell them apart. A lost update, although every write was fenced.`
            : `old holder resumes → write token ${t(f.lateWriteA?.token)} → accepted. A wrote ${value(f.lateWriteA)} with its old token over the newer value: ${definition.failure || 'a lost update'}.`,
    },
    {
      id: 'the-row',
      title: fenced ? 'The newer value is intact' : 'What the row holds now',
      action: { kind: 'none' },
      waitingFor: 'nothing',
      preview: "What the row holds after A's late write.",
      done: () => true,
      narrate: (f) =>
        f.lateWriteA?.kind === 'write_rejected'
          ? `The row still holds B's value ${value(f.writeB)} with token ${t(f.writeB?.token)}. A found out from the rejection that it lost the lease, and went back to waiting for it. That is fencing: the storage itself refuses the stale token, in the same statement as the write.`
          : sameToken(f)
            ? `The row holds A's stale value ${value(f.lateWriteA)} with token ${t(f.lateWriteA?.token)}: B's value is lost. A takeover is a grant like any other, and every grant must mint a new token, in the same committed transaction that records it. Then B would have held a newer token than ${t(f.tokenA)}, and A's late write would have been rejected, as in the fenced lab.`
            : `The row holds A's stale value ${value(f.lateWriteA)} with token ${t(f.lateWriteA?.token)}: ${definition.failure || 'a lost update'}. Compare with the fenced lab, where the same pause ends with the newer value intact.`,
    },
  ];
}
