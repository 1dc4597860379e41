import type { WireEvent } from '../core/wire';
import { hasDriftingClock, hasPacketRelay, type LabId } from '../lab/lab-kinds';
import { type Facts, factsFrom, type Step } from './walkthrough';

/** The walkthrough's two workers: a lab where any other worker ran is not telling its story. */
const WALKTHROUGH_WORKERS: ReadonlySet<string> = new Set(['A', 'B']);

/**
 * Where a lab is in the walkthrough, judged only by its history since its last reset (the events a
 * page holds): a reloaded page, the trainer's or a watcher's, comes back here, and nothing is run
 * to find out. `off-script` is a lab doing something else (free play): the walkthrough can only
 * begin it again, from its first step, the reset.
 */
export type WalkthroughPosition =
  | { kind: 'at'; step: number; facts: Facts }
  | { kind: 'off-script'; why: string; facts: Facts };

export function walkthroughPosition(
  steps: readonly Step[],
  events: readonly WireEvent[],
  lab?: LabId,
): WalkthroughPosition {
  const facts = factsFrom(events, lab);
  const started = events.filter((e) => e.kind === 'worker_started' || e.kind === 'worker_restarted');
  const stranger = started.find((e) => !WALKTHROUGH_WORKERS.has(e.actor));
  if (stranger) return { kind: 'off-script', why: `${stranger.actor} is not one of the walkthrough's workers`, facts };
  // B joins the story only once A is frozen in its critical window; in the drifting clock's, once A
  // holds the lease (nothing freezes there).
  // In the delayed packet's, once A's lease has run out while its write was held.
  const [joinsAfter, why] =
    lab !== undefined && hasDriftingClock(lab)
      ? [facts.grantA, 'B started before A held the lease']
      : lab !== undefined && hasPacketRelay(lab)
        ? [facts.expiryA, "B started before A's lease ran out"]
        : [facts.pauseA, 'B started before A froze'];
  const earlyB = started.find((e) => e.actor === 'B' && (joinsAfter === undefined || e.id < joinsAfter.id));
  if (earlyB) return { kind: 'off-script', why, facts };
  return { kind: 'at', step: stepReachedBy(steps, facts), facts };
}

/**
 * How far the walkthrough has got, judged only by what happened: the last step of the unbroken run
 * of completed steps from the first. It may be ahead of the step the trainer shows (a lease runs out
 * by itself): a watcher's page shows the trainer's, as the lab records it, and tells it only once
 * this has reached it. The first step (the reset) counts as done as soon as there is a lab to look at.
 */
export function stepReachedBy(steps: readonly Step[], facts: Facts): number {
  let reached = 0;
  for (let i = 1; i < steps.length; i++) {
    if (!steps[i]?.done(facts)) break;
    reached = i;
  }
  return reached;
}

/**
 * How many of `events` it took to reach step `index`: the shortest prefix that completes the steps up
 * to it (binary search: the count of steps reached only grows with the prefix); all of them when the
 * events do not reach it.
 */
export function eventsToReach(
  steps: readonly Step[],
  events: readonly WireEvent[],
  index: number,
  lab?: LabId,
): number {
  const reached = (n: number) => stepReachedBy(steps, factsFrom(events.slice(0, n), lab));
  if (index <= 0) return Math.min(1, events.length);
  if (reached(events.length) < index) return events.length;
  let lo = 1;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (reached(mid) >= index) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The facts step `index` is told from: as of its moment (the events that reached it) when the lab has
 * gone on past it, to a later step reached by later events; else everything recorded so far. A step
 * the lab has gone past says what was true at its moment, as the panels beside it show (a step is a
 * moment); the last step, reached with the one before it, leaves that one live.
 *
 * Called again at every event a page receives: the moments each step was reached, and the facts at
 * them, are remembered for the history they were found in (reachOf), so a page of thousands of events
 * reads its events once per event, not 2·log n times. The same answers as eventsToReach.
 */
export function factsAtStep(steps: readonly Step[], events: readonly WireEvent[], index: number, lab?: LabId): Facts {
  const reach = reachOf(steps, events, lab);
  if (index >= reach.reachedNow) return reach.factsNow;
  const end = reach.ends[Math.max(0, index)] ?? events.length;
  const latest = reach.ends[reach.reachedNow] ?? events.length;
  if (end >= latest) return reach.factsNow;
  let facts = reach.factsAt.get(end);
  if (!facts) {
    facts = factsFrom(events.slice(0, end), lab);
    reach.factsAt.set(end, facts);
  }
  return facts;
}

/**
 * What factsAtStep remembers of one history: `ends[i]`, how many events it took to reach step i (as
 * eventsToReach), for each step reached; the facts of the whole and of the prefixes asked for.
 */
type Reach = {
  lab: LabId | undefined;
  events: readonly WireEvent[];
  factsNow: Facts;
  reachedNow: number;
  ends: number[];
  factsAt: Map<number, Facts>;
};

const reaches = new WeakMap<readonly Step[], Reach>();

/**
 * Whether `events` begins with `seen`, event for event: the page's history grew by appending. An event
 * put in before the end (or a reset) moves the last one seen, and the reach is found again.
 */
const extends_ = (seen: readonly WireEvent[], events: readonly WireEvent[]) =>
  seen.length <= events.length &&
  (seen.length === 0 || (seen[0] === events[0] && seen[seen.length - 1] === events[seen.length - 1]));

function reachOf(steps: readonly Step[], events: readonly WireEvent[], lab: LabId | undefined): Reach {
  const cached = reaches.get(steps);
  if (cached && cached.lab === lab && cached.events === events) return cached;
  const kept = cached && cached.lab === lab && extends_(cached.events, events) ? cached : undefined;
  const factsNow = factsFrom(events, lab);
  const reachedNow = stepReachedBy(steps, factsNow);
  const ends = [Math.min(1, events.length)];
  const reached = (n: number) => stepReachedBy(steps, factsFrom(events.slice(0, n), lab));
  for (let i = 1; i <= reachedNow; i++) {
    // A step reached within the history seen before was reached at the same moment now.
    const known = kept && i <= kept.reachedNow ? kept.ends[i] : undefined;
    if (known !== undefined) {
      ends.push(known);
      continue;
    }
    // Not reached by the events seen before: by a later one, and not before the step ahead of it.
    let lo = Math.max(ends[i - 1] ?? 1, (kept?.events.length ?? 0) + 1, 1);
    let hi = events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (reached(mid) >= i) hi = mid;
      else lo = mid + 1;
    }
    ends.push(lo);
  }
  const factsAt = new Map<number, Facts>();
  if (kept) for (const [end, facts] of kept.factsAt) if (end < kept.events.length) factsAt.set(end, facts);
  const reach = { lab, events, factsNow, reachedNow, ends, factsAt };
  reaches.set(steps, reach);
  return reach;
}

/**
 * The steps a deep link to step `target` (from 0) has to run, in order, from where the lab is:
 * none when the lab is there already or past it; from the reset when the lab is off script.
 */
export function stepsToReach(position: WalkthroughPosition, target: number): number[] {
  const from = position.kind === 'at' ? position.step + 1 : 0;
  return Array.from({ length: Math.max(0, target - from + 1) }, (_, i) => from + i);
}
