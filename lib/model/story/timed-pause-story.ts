import type { WireEvent } from '../core/wire';
import { isLostToB } from '../sweep/sweep-cell';
import type { StoryStep } from './story-engine';

/*
 * The timed pause story (a sweep's every run, a what-if fork), as steps of the one story engine: A
 * takes the lease and writes; B starts and waits for the lease; A is armed to freeze in its critical
 * window for `pauseMs`, and nothing else is done to either worker. Whether B takes over is up to the
 * pause against the lease TTL by the database's clock. A may find its lease taken over (its renewal
 * refused) before the pause strikes, a slow clock renewing late: it then writes nothing more and the
 * story ends there. Otherwise it ends once A has written after its freeze (and, when asked, once B
 * has had its chance to write). Pure: the server's driver does the actions and reads the facts.
 */

export type TimedPauseFacts = {
  firstWriteA?: WireEvent;
  /** A's freeze, or A's lease lost to B before it froze (the story's other end). */
  froze?: WireEvent;
  lostToB: boolean;
  woke?: WireEvent;
  late?: WireEvent;
  writeB?: WireEvent;
};

const isWrite = (e: WireEvent) => e.kind === 'write_accepted' || e.kind === 'write_rejected';

export function timedPauseFacts(events: readonly WireEvent[]): TimedPauseFacts {
  const find = (match: (e: WireEvent) => boolean, after = 0) => events.find((e) => e.id > after && match(e));
  const froze = find((e) => (e.actor === 'A' && e.kind === 'pause_started') || isLostToB(e, events));
  const lostToB = froze?.kind === 'lease_lost';
  const woke = froze && !lostToB ? find((e) => e.actor === 'A' && e.kind === 'pause_ended', froze.id) : undefined;
  const late = woke && find((e) => e.actor === 'A' && isWrite(e), woke.id);
  return {
    firstWriteA: find((e) => e.actor === 'A' && e.kind === 'write_accepted'),
    froze,
    lostToB,
    woke,
    late,
    writeB: find((e) => e.actor === 'B' && isWrite(e)),
  };
}

export function timedPauseSteps(story: {
  pauseMs: number;
  /** After A's late write, how long to give B for a write of its own (a fork shows B's write beside A's). */
  waitForBMs?: number;
  /** The driver's usual wait for one step. */
  stepTimeoutMs: number;
}): StoryStep<TimedPauseFacts>[] {
  const ended = (f: TimedPauseFacts) => f.lostToB;
  const steps: StoryStep<TimedPauseFacts>[] = [
    { action: { kind: 'start', worker: 'A' }, waitingFor: 'A writes', done: (f) => f.firstWriteA !== undefined },
    // B joins and polls for the lease from now on; A's lease holds it off until it runs out.
    { action: { kind: 'start', worker: 'B' }, waitingFor: 'B to start', done: () => true },
    {
      action: { kind: 'freeze-before-write', worker: 'A', ms: story.pauseMs },
      waitingFor: 'A freezes',
      done: (f) => f.froze !== undefined,
    },
    {
      action: { kind: 'none' },
      waitingFor: 'A wakes',
      done: (f) => ended(f) || f.woke !== undefined,
      timeoutMs: story.pauseMs + story.stepTimeoutMs,
    },
    {
      action: { kind: 'none' },
      waitingFor: 'A writes after its pause',
      done: (f) => ended(f) || f.late !== undefined,
    },
  ];
  if (!story.waitForBMs) return steps;
  // B writes once it holds the lease; if A kept it (a pause shorter than the lease), B waits in vain.
  return [
    ...steps,
    {
      action: { kind: 'none' },
      waitingFor: "B's write",
      done: (f) => ended(f) || f.writeB !== undefined,
      timeoutMs: story.waitForBMs,
      optional: true,
    },
  ];
}
