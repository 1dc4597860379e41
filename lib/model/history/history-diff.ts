import type { WireEvent } from '../core/wire';

/*
 * Where two histories first differ, as a teacher means it: not the ids, wall times or exact
 * numbers of two runs (those always differ), but what happened to each holder, in order. Each run
 * is read as one list of steps per holder (its actor): started, took the lease with the run's n-th
 * token, wrote with the n-th token and the write was accepted or rejected (and what the row held),
 * froze, woke up, its lease expired, it found out it lost the lease, it was released, crashed,
 * restarted, stopped; and the lab's own steps (the failover lab's cluster) under the lab's name.
 *
 * - Tokens are compared by rank within their run (the run's 1st, 2nd, … token by value), since two
 *   runs draw from one sequence and never get the same numbers.
 * - Renewals and sent writes are left out: how many happen depends on timing, not on the story.
 * - A step repeated back to back (a holder writing every 0.3 s under one token) is one step: the
 *   count is kept for the words but not compared.
 * - Holders are aligned step by step; of the holders whose steps part, the first difference is the
 *   one that comes first in its run's order of events (the smaller of the two positions since each
 *   run's start), then by holder name.
 *
 * What the compare page reports first is the first write whose outcome differs (first-difference.ts);
 * these steps are its fallback when every write came out the same.
 */

export type RunStep = {
  holder: string;
  /** What is compared: the step without ids, times or raw tokens. */
  key: string;
  /** The step in words, with the run's real tokens. */
  words: string;
  /** The event that began the step (its first occurrence when repeated). */
  eventId: number;
  at: number;
  /** Position of that event in its run, from 1 (the run's first event). */
  ordinal: number;
  /** How many times in a row it happened. */
  repeats: number;
};

export type FirstDifference = {
  holder: string;
  /** What `step` counts: the holder's writes (the first whose outcome differs) or all its steps. */
  of: 'write' | 'step';
  /** Of a write: what its holder last did before it, in words ("after it woke up"). */
  after?: string;
  /** Index (from 0) of the holder's write or step where the runs part. */
  step: number;
  /** The step of each run there; undefined when that run has no such step (it ended, or not yet). */
  a: RunStep | undefined;
  b: RunStep | undefined;
};

/** Whose steps the lab's own events (not a holder's) are filed under. */
export const LAB_HOLDER = 'the lab';

const LAB_STEP_KINDS = new Set<string>([
  'lab_closed',
  'pair_started',
  'replication_cut',
  'replication_healed',
  'grant_waiting',
  'primary_killed',
  'standby_promoted',
  'pair_stopped',
]);

/** Every token of the run (grants and what rejections said the row held), ranked by value from 1. */
function tokenRanks(events: readonly WireEvent[]): Map<number, number> {
  const seen = new Set<number>();
  for (const e of events) {
    if (e.token !== undefined) seen.add(e.token);
    if (e.storedToken !== undefined && e.storedToken > 0) seen.add(e.storedToken);
  }
  return new Map([...seen].sort((x, y) => x - y).map((token, i) => [token, i + 1]));
}

type Described = { key: string; words: string };

export type TokenRank = (token: number | undefined) => string;

/** How a run's tokens are said: "#n", their rank by value in the run, or "none". */
export function rankerOf(events: readonly WireEvent[]): TokenRank {
  const ranks = tokenRanks(events);
  return (token) => (token === undefined || token === 0 ? 'none' : `#${ranks.get(token) ?? '?'}`);
}

/** One event as a step, or undefined for what is not compared (renewals, sent writes). */
export function describeStep(e: WireEvent, rank: TokenRank): Described | undefined {
  const t = rank(e.token);
  const real = e.token === undefined ? '' : ` (${e.token})`;
  switch (e.kind) {
    case 'worker_started':
    case 'worker_restarted':
    case 'worker_stopped':
    case 'worker_crashed': {
      const verb = e.kind.slice('worker_'.length);
      return { key: verb, words: `${e.actor} ${verb}` };
    }
    case 'lease_acquired':
      return { key: `acquired ${t}`, words: `${e.actor} took the lease with token ${t}${real}` };
    case 'lease_released':
      return { key: `released ${t}`, words: `${e.actor} released its lease (token ${t}${real})` };
    case 'lease_expired':
      return { key: `expired ${t}`, words: `${e.actor}'s lease with token ${t}${real} expired` };
    case 'lease_lost':
      return { key: `lost ${t}`, words: `${e.actor} found out it lost its lease (token ${t}${real})` };
    case 'pause_started':
      return { key: 'froze', words: `${e.actor} froze` };
    case 'pause_ended':
      return { key: 'woke', words: `${e.actor} woke up` };
    case 'write_accepted':
      return { key: `write ${t} accepted`, words: `${e.actor}'s write with token ${t}${real} was accepted` };
    case 'write_rejected': {
      const held =
        e.storedToken === undefined || e.storedToken === 0
          ? ''
          : `: the row held token ${rank(e.storedToken)} (${e.storedToken})`;
      const outcome = e.outcome ? ` as ${e.outcome}` : '';
      return {
        key: `write ${t} rejected${outcome} held ${rank(e.storedToken)}`,
        words: `${e.actor}'s write with token ${t}${real} was rejected${outcome}${held}`,
      };
    }
    default:
      if (LAB_STEP_KINDS.has(e.kind)) {
        const what = e.kind.replaceAll('_', ' ');
        return { key: e.kind, words: `${what}${e.token === undefined ? '' : ` (token ${t}${real})`}` };
      }
      // Renewals and sent writes: their number is a matter of timing.
      return undefined;
  }
}

/** A run's steps per holder, in the order the run recorded them (ids ascending). */
export function runSteps(events: readonly WireEvent[]): Map<string, RunStep[]> {
  const rank = rankerOf(events);
  const steps = new Map<string, RunStep[]>();
  events.forEach((e, i) => {
    const described = describeStep(e, rank);
    if (!described) return;
    const holder = LAB_STEP_KINDS.has(e.kind) ? LAB_HOLDER : e.actor;
    const list = steps.get(holder) ?? [];
    steps.set(holder, list);
    const last = list.at(-1);
    if (last && last.key === described.key) {
      last.repeats += 1;
      return;
    }
    list.push({ holder, ...described, eventId: e.id, at: e.at, ordinal: i + 1, repeats: 1 });
  });
  return steps;
}

/** Where a difference comes in its runs: the smaller of its two positions since each run's start. */
export const positionOf = (d: FirstDifference) =>
  Math.min(d.a?.ordinal ?? Number.POSITIVE_INFINITY, d.b?.ordinal ?? Number.POSITIVE_INFINITY);

/** The first step where two runs differ, or undefined when every holder did the same things in the same order. */
export function firstStepDifference(a: readonly WireEvent[], b: readonly WireEvent[]): FirstDifference | undefined {
  const left = runSteps(a);
  const right = runSteps(b);
  const holders = [...new Set([...left.keys(), ...right.keys()])].sort();
  let first: FirstDifference | undefined;
  for (const holder of holders) {
    const x = left.get(holder) ?? [];
    const y = right.get(holder) ?? [];
    const length = Math.max(x.length, y.length);
    for (let step = 0; step < length; step += 1) {
      const [sa, sb] = [x[step], y[step]];
      if (sa?.key === sb?.key) continue;
      const found: FirstDifference = { holder, of: 'step', step, a: sa, b: sb };
      if (!first || positionOf(found) < positionOf(first)) first = found;
      break;
    }
  }
  return first;
}
