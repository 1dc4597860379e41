import type { WireEvent } from '../core/wire';
import type { WorkerSettings } from '../lab/lab-inputs';
import { hasDriftingClock, hasPacketRelay, type LabId } from '../lab/lab-kinds';
import { DELAYED_PACKET_SETTINGS } from './delayed-packet-settings';
import { isOutcome, NotRecordedYet } from './narration';
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
