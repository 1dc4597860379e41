import type { GuardQueuePlace } from './guard-inputs';

/*
 * Where a queued guard stands, in words a trainee reads while it waits (issue 24 item 3): its place
 * in the room's line of jobs, and an estimate of its verdict's arrival from what the queue recorded
 * (recent attacks' times, the slots the room's app servers offer). Pure: the figures come from
 * guard_attempts and job_servers (db/guard-queue.ts).
 */

/** What the queue recorded when it was asked. */
export type QueueFacts = {
  /** True once a server has claimed the attempt. */
  running: boolean;
  /** Seconds it has been attacked (running only). */
  runningForSeconds: number;
  /** Jobs a server takes before this one's (guard attacks, forks' and sweeps' runs not yet taken). */
  ahead: number;
  /** Jobs running now across the room's servers, each in a slot (attacks, forks' and sweeps' runs). */
  runningNow: number;
  /**
   * Slots held by a sweep's busy queues that still have runs waiting before this one: each keeps its
   * slot until its runs are spent (db/job-line.ts), so the line moves through the others.
   */
  held: number;
  /** Attack slots on the app servers that beat recently; 0 when none is up. */
  slots: number;
  /** Median seconds of the recent attacks, or undefined before the first. */
  typicalSeconds: number | undefined;
};

/** An attack's length before any was recorded: the measured 3-13 s, rounded up. */
export const DEFAULT_ATTACK_SECONDS = 10;

/** Place and estimate: the waves of attacks before its own, each as long as a typical attack. */
export function queuePlace(facts: QueueFacts): GuardQueuePlace {
  const typical = facts.typicalSeconds ?? DEFAULT_ATTACK_SECONDS;
  if (facts.running) return { place: 0, estimateSeconds: Math.max(1, Math.round(typical - facts.runningForSeconds)) };
  // The held slots and the runs in them are not the line's: it moves through the other slots.
  const slots = Math.max(1, facts.slots - facts.held);
  const running = Math.max(0, facts.runningNow - facts.held);
  const waves = Math.floor((facts.ahead + running) / slots) + 1;
  return { place: facts.ahead + 1, estimateSeconds: Math.max(1, Math.round(waves * typical)) };
}

/** 1st, 2nd, 3rd, 4th … 11th, 12th, 13th, 21st. */
export function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${{ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] ?? 'th'}`;
}

/** "3rd in line, about 20 s"; "being attacked now, about 6 s left"; no estimate while no server runs attacks. */
export function queueWords(place: GuardQueuePlace, serversUp = true): string {
  if (!serversUp) return `${ordinal(Math.max(1, place.place))} in line, waiting for an app server to run it`;
  if (place.place === 0) return `being attacked now, about ${place.estimateSeconds} s left`;
  return `${ordinal(place.place)} in line, about ${place.estimateSeconds} s`;
}
