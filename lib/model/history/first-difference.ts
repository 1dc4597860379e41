import type { WireEvent } from '../core/wire';
import {
  describeStep,
  type FirstDifference,
  firstStepDifference,
  LAB_HOLDER,
  positionOf,
  type RunStep,
  rankerOf,
} from './history-diff';

/*
 * Where two runs first differ, as the compare page says it: the first write whose outcome differs.
 * That is the lesson of a comparison (the late write rejected in one run, accepted in the other);
 * a grant's token, which a lab without one sequence numbers its own way, is not.
 *
 * - How many writes a holder makes between two of its steps is a matter of timing (a worker writes
 *   in a loop), so writes are not counted one by one: each is filed under what its holder last did
 *   before it (the n-th time it took the lease, woke up, restarted, …), and there the outcomes are
 *   compared in order, a repeated outcome once (accepted, or rejected as what; never the token).
 * - Of the writes that part, the first in its run's order of events (the smaller of the two
 *   positions since each run's start) whose outcome differs in the other run; if there is none, the
 *   first write one run made and the other did not; if the writes agree, the first other step that
 *   differs (history-diff.ts).
 */

const outcomeOf = (e: WireEvent) =>
  e.kind === 'write_accepted' ? 'accepted' : `rejected${e.outcome ? ` as ${e.outcome}` : ''}`;

/** What a holder had last done when it wrote, in words: "after it woke up". */
const AFTER: Record<string, string> = {
  worker_started: 'after it started',
  worker_restarted: 'after it restarted',
  lease_acquired: 'after it took the lease',
  lease_released: 'after it released its lease',
  lease_expired: 'after its lease expired',
  lease_lost: 'after it found out it lost its lease',
  pause_started: 'while it was frozen',
  pause_ended: 'after it woke up',
};

/** A holder's writes after one of its steps: their outcomes, a repeated one once. */
export type WriteGroup = { holder: string; after: string; writes: RunStep[] };

const ordinal = (n: number) => {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
};

/** Each holder's writes, filed under what it last did ("A's writes after it woke up"), keyed by holder and that. */
export function runWrites(events: readonly WireEvent[]): Map<string, WriteGroup> {
  const rank = rankerOf(events);
  const groups = new Map<string, WriteGroup>();
  /** Per holder: what it last did, and how many times it has done each thing. */
  const last = new Map<string, string>();
  const times = new Map<string, number>();
  events.forEach((e, i) => {
    if (e.kind !== 'write_accepted' && e.kind !== 'write_rejected') {
      const words = AFTER[e.kind];
      if (words === undefined) return;
      const n = (times.get(`${e.actor}\u0000${e.kind}`) ?? 0) + 1;
      times.set(`${e.actor}\u0000${e.kind}`, n);
      last.set(e.actor, n > 1 ? `${words} (the ${ordinal(n)} time)` : words);
      return;
    }
    const described = describeStep(e, rank);
    if (!described) return;
    const after = last.get(e.actor) ?? 'before anything else it did';
    const key = `${e.actor}\u0000${after}`;
    const group = groups.get(key) ?? { holder: e.actor, after, writes: [] };
    groups.set(key, group);
    const outcome = outcomeOf(e);
    const previous = group.writes.at(-1);
    if (previous?.key === outcome) {
      previous.repeats += 1;
      return;
    }
    group.writes.push({
      holder: e.actor,
      key: outcome,
      words: described.words,
      eventId: e.id,
      at: e.at,
      ordinal: i + 1,
      repeats: 1,
    });
  });
  return groups;
}

const earlier = (found: FirstDifference, best: FirstDifference | undefined) =>
  !best || positionOf(found) < positionOf(best);

/** The first write whose outcome differs, else the first made in one run only; undefined when the writes agree. */
export function firstWriteDifference(a: readonly WireEvent[], b: readonly WireEvent[]): FirstDifference | undefined {
  const left = runWrites(a);
  const right = runWrites(b);
  let differs: FirstDifference | undefined;
  let missing: FirstDifference | undefined;
  for (const key of new Set([...left.keys(), ...right.keys()])) {
    const group = left.get(key) ?? right.get(key);
    if (!group) continue;
    const x = left.get(key)?.writes ?? [];
    const y = right.get(key)?.writes ?? [];
    for (let step = 0; step < Math.max(x.length, y.length); step += 1) {
      const [sa, sb] = [x[step], y[step]];
      if (sa?.key === sb?.key) continue;
      const found: FirstDifference = { holder: group.holder, of: 'write', after: group.after, step, a: sa, b: sb };
      if (sa && sb) {
        if (earlier(found, differs)) differs = found;
      } else if (earlier(found, missing)) missing = found;
      break;
    }
  }
  return differs ?? missing;
}

/** The first point where two runs differ (see above), or undefined when they do not. */
export function firstDifference(a: readonly WireEvent[], b: readonly WireEvent[]): FirstDifference | undefined {
  return firstWriteDifference(a, b) ?? firstStepDifference(a, b);
}

/**
 * The difference in one sentence, for the page and for screen readers. `places`: where each run
 * was in the walkthrough's story then (history-diff-story.ts), said beside its side. A holder's
 * writes are named by what it last did ("A's writes after it woke up"), its other steps counted
 * ("the 7th thing A did"), never "step 7", which the walkthrough's own steps are.
 */
export function describeDifference(
  d: FirstDifference | undefined,
  names: { a: string; b: string },
  places: { a?: string | undefined; b?: string | undefined } = {},
): string {
  if (!d) return `No difference: in ${names.a} and ${names.b} every holder did the same things in the same order.`;
  const side = (name: string, step: RunStep | undefined, place: string | undefined) =>
    step
      ? `in ${name}${place ? ` (${place})` : ''}, ${step.words}`
      : `${name} has no such ${d.of} (it ended there, or has not got there yet)`;
  const what =
    d.of === 'write'
      ? `${d.holder}'s writes ${d.after ?? ''}`.trimEnd()
      : `every write came out the same; the ${ordinal(d.step + 1)} thing ${d.holder === LAB_HOLDER ? 'the lab' : d.holder} did`;
  return `First difference, ${what}: ${side(names.a, d.a, places.a)}; ${side(names.b, d.b, places.b)}.`;
}
