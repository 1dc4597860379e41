import type { WireEvent } from '../core/wire';
import type { WorkerSettings } from '../lab/lab-inputs';
import { hasDriftingClock, hasPacketRelay, type LabId } from '../lab/lab-kinds';
import { DELAYED_PACKET_SETTINGS } from './delayed-packet-settings';
import { isOutcome, NotRecordedYet, settingsOf } from './narration';
import { delayedPacketFacts, delayedPacketSteps } from './walkthrough-delayed-packet';
import { DRIFTING_CLOCK_SETTINGS, driftingClockFacts, driftingClockSteps } from './walkthrough-drifting-clock';
import { pauseSteps, WALKTHROUGH_SETTINGS } from './walkthrough-pause';
import type { Facts, Step } from './walkthrough-types';

export type { Facts, Step, StepAction } from './walkthrough-types';
export { WALKTHROUGH_SETTINGS };

/*
 * The guided walkthroughs, as data: what each step does to the real lab, which event tells that it
 * happened, and what to say about it, read from the events the database recorded and the row.
 * Each lab tells one of three stories: the pause (walkthrough-pause.ts), the drifting clock, or the
 * delayed packet. Pure: the page runs the actions and feeds the events back in.
 */

/** The two workers' settings in a lab's walkthrough: the pause story's, or the drifting clock's. */
export function walkthroughSettings(lab: LabId): Record<'A' | 'B', WorkerSettings> {
  if (hasPacketRelay(lab)) return DELAYED_PACKET_SETTINGS;
  return hasDriftingClock(lab) ? DRIFTING_CLOCK_SETTINGS : WALKTHROUGH_SETTINGS;
}

/**
 * What happened so far, read from the events of this run (ids after the run began), for the story
 * the lab tells: the pause, the drifting clock, or the delayed packet.
 */
export function factsFrom(events: readonly WireEvent[], lab?: LabId): Facts {
  const facts =
    lab !== undefined && hasPacketRelay(lab)
      ? delayedPacketFacts(events)
      : lab !== undefined && hasDriftingClock(lab)
        ? driftingClockFacts(events)
        : pauseFacts(events);
  const writes = events.filter(isOutcome);
  return writes.length === 0 ? facts : { ...facts, writes };
}

/**
 * The pause story's facts, each keyed on the events that make it true, however the run went: the
 * lease that ran out is the one A held when it froze (A may have lost and retaken its lease before,
 * a stalled process), B's grant is the one before B's write, the late write is A's first after it woke.
 */
function pauseFacts(events: readonly WireEvent[]): Facts {
  const find = (match: (e: WireEvent) => boolean, after = 0) => events.find((e) => e.id > after && match(e));
  const before = (match: (e: WireEvent) => boolean, id: number) => events.findLast((e) => e.id < id && match(e));
  const grantOf = (actor: string) => (e: WireEvent) => e.actor === actor && e.kind === 'lease_acquired';
  const facts: Facts = {};
  const set = <K extends keyof Facts>(key: K, value: Facts[K] | undefined) => {
    if (value !== undefined) facts[key] = value;
  };
  const firstWriteA = find((e) => e.actor === 'A' && e.kind === 'write_accepted');
  set('firstWriteA', firstWriteA);
  // The grant A's first write was made under: the last before it.
  set('grantA', firstWriteA ? before(grantOf('A'), firstWriteA.id) : find(grantOf('A')));
  // The walkthrough's freeze is the one in A's critical window: a pause the trainer gave A by hand
  // (until resumed, or for a while) is not the story's, and neither is a lease that ran out during it.
  const pauseA = find((e) => e.actor === 'A' && e.kind === 'pause_started' && e.detail.trigger === 'critical-window');
  set('pauseA', pauseA);
  // The lease that runs out in the story: the one A held when it froze (its last grant before).
  const heldA = pauseA ? before(grantOf('A'), pauseA.id) : events.findLast(grantOf('A'));
  set('heldA', heldA);
  set('tokenA', heldA?.token);
  // The token A believed it held when it froze, as it recorded it (its writes carry it).
  set('beliefTokenA', pauseA?.token ?? beliefToken(pauseA));
  const expiryA =
    pauseA && heldA && find((e) => e.actor === 'A' && e.kind === 'lease_expired' && e.token === heldA.token, heldA.id);
  set('expiryA', expiryA);
  const wokeA = pauseA && find((e) => e.actor === 'A' && e.kind === 'pause_ended', pauseA.id);
  set('wokeA', wokeA);
  const writeB = expiryA && find((e) => e.actor === 'B' && isOutcome(e), expiryA.id);
  set('writeB', writeB);
  const grantB = writeB ? before(grantOf('B'), writeB.id) : find(grantOf('B'), expiryA?.id ?? 0);
  set('grantB', grantB);
  set('tokenB', grantB?.token);
  const lateWriteA = wokeA && find((e) => e.actor === 'A' && isOutcome(e), wokeA.id);
  set('lateWriteA', lateWriteA);
  // What A made of its late write's answer: its lease lost, when it recorded that.
  set('lostA', lateWriteA && find((e) => e.actor === 'A' && e.kind === 'lease_lost', lateWriteA.id));
  set('startA', settingsOf(events, 'A', pauseA?.id));
  set('startB', settingsOf(events, 'B', writeB?.id));
  return facts;
}

/** The token in a freeze's recorded belief ("I hold token 62 until …"), for events recorded before it had its own. */
function beliefToken(pause: WireEvent | undefined): number | undefined {
  const match = String(pause?.detail.belief ?? '').match(/^I hold token (\d+) /);
  return match ? Number(match[1]) : undefined;
}

/**
 * The walkthrough of a lab, whose steps' words are read from the events and the row: a step whose
 * facts are not all recorded yet says what it waits for, never a placeholder.
 */
export function walkthroughFor(lab: LabId): Step[] {
  const steps = hasDriftingClock(lab)
    ? driftingClockSteps(lab)
    : hasPacketRelay(lab)
      ? delayedPacketSteps(lab)
      : pauseSteps(lab);
  return steps.map((step) => ({
    ...step,
    narrate: (facts, row) => {
      try {
        return step.narrate(facts, row);
      } catch (error) {
        if (error instanceof NotRecordedYet) return `Waiting for ${step.waitingFor}.`;
        throw error;
      }
    },
  }));
}
