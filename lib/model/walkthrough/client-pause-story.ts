import { clientLanes } from '../checker/client-faults';
import type { WireEvent } from '../core/wire';
import { hasDriftingClock, hasPacketRelay, type LabId } from '../lab/lab-kinds';
import { isOutcome } from './narration';
import { factsFrom, walkthroughFor } from './walkthrough';
import type { Facts, Step } from './walkthrough-types';

/*
 * The pause story with a person's own client as A (issue 36): the "Your client" panel's one button.
 * A is already running (the person started it on their machine), so the story does not reset the lab
 * or start A: it waits for A to hold the lease, then tells the lab walkthrough's steps from A's freeze
 * on (freeze A before its next write, its lease runs out, B takes over, A resumes). Its facts are the
 * walkthrough's, read from the events recorded since the story began, and the grant A held then. Pure.
 */

/** Whether a lab tells the pause story (the drifting-clock and delayed-packet labs tell their own). */
export function tellsPauseStory(kind: LabId): boolean {
  return !hasDriftingClock(kind) && !hasPacketRelay(kind);
}

const LEASE_EVENTS = new Set(['lease_acquired', 'lease_renewed', 'lease_expired', 'lease_released', 'lease_lost']);

/** Whether `actor` holds the lease as its recorded events say: its last lease event is a grant or a renewal. */
export function holdsLease(events: readonly WireEvent[], actor: string): boolean {
  const last = events.findLast((e) => e.actor === actor && LEASE_EVENTS.has(e.kind));
  return last?.kind === 'lease_acquired' || last?.kind === 'lease_renewed';
}

/**
 * The client story's facts: the walkthrough's, whether A holds the lease now, A's end if it ended,
 * and whether the lab was reset since the story began (the event it began after is gone).
 */
export type ClientStoryFacts = Facts & { holdsA: boolean; endA?: WireEvent; resetSince: boolean };

/**
 * The facts of a story that began after event `mark`: the walkthrough's facts of the events after it,
 * with A's last grant at or before it (the lease A may already hold, whose expiry the story waits for).
 */
export function clientStoryFacts(events: readonly WireEvent[], mark: number, kind: LabId): ClientStoryFacts {
  const after = events.filter((e) => e.id > mark);
  const grant = events.findLast((e) => e.id <= mark && e.actor === 'A' && e.kind === 'lease_acquired');
  const facts = factsFrom(grant ? [grant, ...after] : after, kind);
  const endA = after.find((e) => e.actor === 'A' && (e.kind === 'worker_stopped' || e.kind === 'worker_crashed'));
  const resetSince = mark > 0 && !events.some((e) => e.id === mark);
  return { ...facts, holdsA: holdsLease(events, 'A'), resetSince, ...(endA ? { endA } : {}) };
}

/** Whether A runs a person's program now, as the panel lists it (its start named the program, and it has not ended). */
export function clientRunsAsA(events: readonly WireEvent[]): boolean {
  return clientLanes(events).some((lane) => lane.actor === 'A' && lane.running);
}

/** Long enough for a client's lease of up to a minute to run out while A is frozen (a lease is at most 60 s). */
const LEASE_RUNS_OUT_MS = 70_000;
/** A client that has not taken the lease in this time is held off by another holder (or does not ask). */
const HOLD_TIMEOUT_MS = 30_000;

/** The steps: A holds the lease, then the walkthrough's pause story from A's freeze on. */
export function clientPauseSteps(kind: LabId): Step[] {
  const steps = walkthroughFor(kind);
  const from = steps.findIndex((step) => step.id === 'a-freezes');
  const told = steps
    .slice(from)
    .map((step) =>
      step.id === 'a-expires' || step.id === 'b-takes-over' ? { ...step, timeoutMs: LEASE_RUNS_OUT_MS } : step,
    );
  return [
    {
      id: 'a-holds',
      title: 'A holds the lease',
      action: { kind: 'none' },
      waitingFor: 'A to hold the lease',
      preview: 'Your client, A, takes the lease.',
      timeoutMs: HOLD_TIMEOUT_MS,
      done: (f) => ('holdsA' in f && f.holdsA === true) || f.pauseA !== undefined,
      narrate: () => 'Your client, A, holds the lease.',
    },
    ...told,
  ];
}

/** The button's words while the story runs, and once it has told its end, from the recorded facts. */
export function clientStoryProgress(f: ClientStoryFacts): string {
  if (f.resetSince) return 'The lab was reset: the story stops.';
  const late = f.lateWriteA;
  if (late) {
    const token = late.token === undefined ? '' : ` with token ${late.token}`;
    if (late.kind === 'write_rejected')
      return `A resumed: its late write${token} was refused as stale, and the row keeps B's value.`;
    const overwrote = f.writeB?.kind === 'write_accepted' ? `: B's value was overwritten, a lost update` : '';
    return `A resumed: its late write${token} was accepted${overwrote}.`;
  }
  if (f.wokeA) return 'A resumed; waiting for its late write…';
  if (f.writeB && isOutcome(f.writeB)) return 'B has written; A resumes…';
  if (f.expiryA) return 'A is frozen and its lease ran out; B takes over…';
  if (f.pauseA) return 'A is frozen; B takes over once its lease runs out…';
  return f.holdsA ? 'A holds the lease; freezing it before its next write…' : 'Waiting for A to hold the lease…';
}
