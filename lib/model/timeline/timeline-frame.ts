/*
 * What the timeline shows while a story is told step by step: the stretch of database time that
 * holds the shown step's evidence, from the step before it was done to the moment it was, widened to
 * "now" while the trainer talks. A window that only followed "now" would scroll the marks a step
 * talks about off the screen within seconds. Pure: times in, times out.
 */

type Timed = { at: number };

/**
 * When each step of a story was reached: `moments[k]` is the database time of the first event after
 * which `reachedBy` (a count that only grows as events are added) is k or more; `moments[0]` is the
 * story's first event. Undefined for a step not reached yet. Found by binary search over the events'
 * prefixes, so a long run costs a few dozen foldings, not one per event.
 */
export function stepMoments<E extends Timed>(
  events: readonly E[],
  reachedBy: (prefix: readonly E[]) => number,
  count: number,
): Array<number | undefined> {
  return stepMomentEvents(events, reachedBy, count).map((e) => e?.at);
}

/**
 * The event at which each step was reached (`stepMoments`' times are theirs): a panel cut at a
 * step's moment keeps the events up to this one, by id, not every event of the same millisecond.
 */
export function stepMomentEvents<E extends Timed>(
  events: readonly E[],
  reachedBy: (prefix: readonly E[]) => number,
  count: number,
): Array<E | undefined> {
  const moments: Array<E | undefined> = [events[0]];
  const memo = new Map<number, number>();
  const reached = (n: number) => {
    let known = memo.get(n);
    if (known === undefined) {
      known = reachedBy(events.slice(0, n));
      memo.set(n, known);
    }
    return known;
  };
  for (let k = 1; k < count; k++) {
    if (reached(events.length) < k) {
      moments.push(undefined);
      continue;
    }
    let lo = 1;
    let hi = events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (reached(mid) >= k) hi = mid;
      else lo = mid + 1;
    }
    moments.push(events[lo - 1]);
  }
  return moments;
}

/**
 * The stretch of a story a step talks about: [from, to] in database time; `untilNow` for the latest
 * step reached (what the room is watching now), whose window keeps now in view too.
 */
export type StepFrame = { from: number; to: number; untilNow: boolean };

/**
 * The evidence of step `index` (done once the story has reached it): what happened since the step
 * before was done, up to the moment this one was. The last step sums the story up: all of it. Another
 * step not reached yet frames the last one reached (the stretch it will happen after).
 */
export function stepFrame(moments: readonly (number | undefined)[], index: number): StepFrame | undefined {
  const first = moments[0];
  if (first === undefined) return undefined;
  const reachedUpTo = moments.findLastIndex((m) => m !== undefined);
  const shown = Math.min(index, reachedUpTo);
  const to = moments[shown] ?? first;
  const untilNow = shown === reachedUpTo;
  if (shown === 0) return { from: first, to, untilNow };
  // The last step sums the story up, also one without an event of its own (the failover's verdict).
  const isLast = index >= moments.length - 1;
  return { from: isLast ? first : (moments[shown - 1] ?? first), to, untilNow };
}

/**
 * Spans the framed view snaps to, so that it changes by steps a reader can follow, not every second.
 * The shortest leaves room for the labels of writes 0.7 s apart at the presenter's measures.
 */
const SPANS_MS = [
  3_000, 6_000, 10_000, 15_000, 20_000, 30_000, 45_000, 60_000, 90_000, 120_000, 180_000, 300_000, 600_000,
];
/** Room before the frame's start (its first mark is not cut at the edge), as a share of the span. */
const LEAD = 0.08;
/** Room after the latest of the frame's end and now, as a share of the span. */
const TRAIL = 0.12;

/**
 * The window [start, end] that shows a frame, and "now" with the latest step: it starts just before
 * the frame and grows (by steps) to keep now in view, rather than scrolling, so the step's marks stay
 * on screen however long the trainer talks about them. An earlier step (Back) is shown on its own.
 */
export function framedWindow(frame: StepFrame, now: number): { start: number; end: number } {
  const needed = ((frame.untilNow ? Math.max(frame.to, now) : frame.to) - frame.from) / (1 - LEAD - TRAIL);
  const longest = SPANS_MS[SPANS_MS.length - 1] ?? needed;
  const span = SPANS_MS.find((ms) => ms >= needed) ?? Math.max(longest, needed);
  const start = frame.from - span * LEAD;
  return { start, end: start + span };
}
