import { WORKER_BOUNDS } from '../core/input-bounds';

/*
 * A worker's reading of the clock. Every worker reads a clock that keeps time, except in the
 * drifting-clock lab, where a worker's clock may run slow by a setting (0 to 90 %): that worker's
 * reading of the clock is the only thing altered. Its timers (when to renew, when to write) and its
 * belief about its lease are measured on it; the lease's expiry is the database's, and every other
 * clock (the database's, the other workers') is real.
 */

export type WorkerClock = {
  /** What the worker reads as the time now, in ms since the epoch. */
  now(): number;
  /** How long, in real ms, the worker waits when it means to wait `ms` by its own clock. */
  realMsFor(ms: number): number;
  /** How slow it runs, in percent: 0 keeps time. */
  slowPercent: number;
};

/** The database's bound too (lib/model/core/input-bounds.ts). */
export const MAX_CLOCK_SLOW_PERCENT = WORKER_BOUNDS.clock_slow_percent_max;

/**
 * Whose clock a worker judges its lease by before it writes: its own (`own`, what a lease client
 * does: it computes the lease's end from the grant and its TTL), or the database's (`database`: it
 * asks, and the answer is read on the clock that set the lease's end). A slow clock fools the first
 * and not the second; neither closes the gap between the check and the write: fencing does.
 */
export const LEASE_CLOCKS = ['own', 'database'] as const;
export type LeaseClock = (typeof LEASE_CLOCKS)[number];

export function isLeaseClock(value: unknown): value is LeaseClock {
  return typeof value === 'string' && (LEASE_CLOCKS as readonly string[]).includes(value);
}

/**
 * A clock that reads the real time when the worker starts and then runs at (100 − slowPercent) % of
 * the real rate: 75 % slow, it moves 0.25 s for each real second. `realNow` is the real clock.
 */
export function workerClock(slowPercent: number, realNow: () => number): WorkerClock {
  if (!Number.isFinite(slowPercent) || slowPercent < 0 || slowPercent > MAX_CLOCK_SLOW_PERCENT) {
    throw new RangeError(`a clock runs from 0 to ${MAX_CLOCK_SLOW_PERCENT} % slow, not ${slowPercent}`);
  }
  const rate = 1 - slowPercent / 100;
  const origin = realNow();
  return {
    now: () => origin + (realNow() - origin) * rate,
    realMsFor: (ms) => ms / rate,
    slowPercent,
  };
}
