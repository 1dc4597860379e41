import { createHistoryChecker, type HistoryChecker, type Verdict } from '@/lib/model/checker/checker';
import type { WireEvent } from '@/lib/model/core/wire';

/*
 * The checker's verdict on the log a lab's views show, kept up to date off the frame: the new
 * events only are checked (a history of 200,000 events is judged once, not again at every event),
 * a long stretch of them in slices of about SLICE_MS each, one task each, so that no frame waits on
 * the whole history (judging 200,000 events in one task took 300–400 ms here, a frame that long;
 * slices of 10,000 events still took up to 100 ms on a loaded machine). The verdict is published
 * once the log is checked to its end, at most twice a second.
 */

export type Checked = { verdict: Verdict; flagged: ReadonlySet<number> };

/** Checking time per task (8 ms let two slices and a paint share one 52–83 ms frame); the clock is read every STEP events. */
const SLICE_MS = 4;
const STEP = 256;
const PUBLISH_EVERY_MS = 500;

export const NOTHING_CHECKED: Checked = {
  verdict: { ok: true, violations: [], checked: { writes: 0, grants: 0 } },
  flagged: new Set(),
};

export type VerdictFollower = {
  /** The log to judge now (the views' events): it grows at its end, or is another log (judged afresh). */
  follow(log: readonly WireEvent[]): void;
  current(): Checked;
  subscribe(listener: () => void): () => void;
};

export function createVerdictFollower(): VerdictFollower {
  let checker: HistoryChecker = createHistoryChecker();
  let count = 0;
  let first: WireEvent | undefined;
  let last: WireEvent | undefined;
  let target: readonly WireEvent[] = [];
  let checked = NOTHING_CHECKED;
  let lastPublish = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const listeners = new Set<() => void>();

  const schedule = (delay: number) => {
    if (timer === undefined) timer = setTimeout(step, delay);
  };

  function step() {
    timer = undefined;
    const log = target;
    // The same log plus more (its events recognised by identity), or another one: start over.
    const grown = log.length >= count && (count === 0 || (log[0] === first && log[count - 1] === last));
    const before = grown ? count : -1;
    if (!grown) {
      checker = createHistoryChecker();
      count = 0;
    }
    const started = performance.now();
    do {
      const end = Math.min(log.length, count + STEP);
      checker.append(log, count, end);
      count = end;
    } while (count < log.length && performance.now() - started < SLICE_MS);
    first = log[0];
    last = log[count - 1];
    if (count < log.length) return schedule(0);
    if (count === before) return; // nothing new (the same log, followed by another view)
    lastPublish = Date.now();
    checked = count === 0 ? NOTHING_CHECKED : { verdict: checker.verdict(), flagged: checker.flagged() };
    for (const listener of listeners) listener();
  }

  return {
    follow(log) {
      if (log === target) return;
      target = log;
      schedule(Math.max(0, lastPublish + PUBLISH_EVERY_MS - Date.now()));
    },
    current: () => checked,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
