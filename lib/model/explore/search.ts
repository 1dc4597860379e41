import { checkHistory, type Violation } from '../checker/checker';
import type { WireEvent } from '../core/wire';
import {
  applyStep,
  type ExploreBounds,
  type ExploreState,
  enabledSteps,
  type HolderName,
  initialState,
  nextValue,
  preludeEvents,
  type Step,
  type StepEvent,
  type StoryStart,
  stateKey,
  tokenOf,
  type WriteOutcome,
} from './story';
import { eventWords } from './story-words';

/*
 * The search: every interleaving of the story (story.ts) up to its bounds, depth first, each write
 * executed by the storage (the lab's real SQL, db/explore.ts, under a savepoint per depth) and undone
 * on the way back. After every step the path's events are judged by the history checker: the first
 * violation ends that branch (one broken interleaving).
 *
 * A state already explored is not explored again, yet the count of interleavings stays exact: each
 * state's count is memoized (paths(s) = Σ paths(child); a complete path, or one cut by the depth
 * bound, is 1; a branch ending at its first violation is 1, and broken). The state holds everything
 * the future depends on, the checker's memory of the past included (story.ts stateKey); the step
 * into a state is still judged on its own path, before the memo is asked.
 *
 * The shortest counterexample is kept the same way, by dynamic programming over the explored graph:
 * each state remembers its shortest way to a violation, so no second (breadth-first) pass is needed,
 * and it is exact for the same reason the counts are.
 */

/** `checked`: in a split write, the row's token as the holder's check read it (the app's comparison is the storage's to make). */
/**
 * A write as the storage runs it. `overdue`: the writer's lease ran out before it (an expire step; never
 * with leases granted up front), which only the bypass lab's worker acts on: it takes its catch-up path.
 */
export type StorageWrite = { holder: HolderName; token: number; value: string; checked?: number; overdue?: boolean };

/**
 * The lab's write path, one savepoint per depth: `write` runs under `depth`'s, `undo` rolls back to it;
 * `read` is a split write's first half, the row's token as the lab reads it (it changes nothing).
 */
export interface Storage {
  write(depth: number, write: StorageWrite): Promise<WriteOutcome>;
  read(depth: number): Promise<number>;
  undo(depth: number): Promise<void>;
  /**
   * The failover lab's pair (db/explore-failover.ts), under `depth`'s savepoint: the standby's row made
   * the primary's (a catch-up), or the standby's row the one written from now on (the promotion).
   */
  pair?(depth: number, step: 'catch-up' | 'promote'): Promise<void>;
}

export type ExploreCounts = {
  states: number;
  interleavings: number;
  broken: number;
  /** Paths cut by the depth bound (counted among the interleavings). */
  cut: number;
  duplicates: number;
  /** Writes (and a split write's reads, the failover pair's steps) executed by the storage (on the real database: statements run). */
  storageSteps: number;
  /** Of those, the writes the storage refused with an error (the row's trigger), not by the predicate. */
  refused: number;
};

export type Counterexample = {
  steps: Step[];
  /** The path's events as a lab's history: ids from 1, a step every 100 ms of a made-up clock. */
  events: WireEvent[];
  violation: Violation;
};

export type ExploreResult = {
  bounds: ExploreBounds;
  counts: ExploreCounts;
  /** The shortest path to a violation, if any path breaks. */
  shortest?: Counterexample;
};

type Edge = { step: Step; event: StepEvent };
type Explored = { paths: number; broken: number; cut: number; toViolation?: Edge[] };

/** What the storage says of a step: a write's outcome, a check's read; nothing for the lease's steps. */
async function runStep(
  storage: Storage,
  state: ExploreState,
  step: Step,
): Promise<{ written?: WriteOutcome; read?: number }> {
  if (step.kind === 'check') return { read: await storage.read(state.depth) };
  if (step.kind === 'catch-up' || step.kind === 'promote') {
    if (!storage.pair) throw new RangeError(`this storage has no pair for a ${step.kind} step`);
    await storage.pair(state.depth, step.kind);
    return {};
  }
  if (step.kind !== 'write') return {};
  const checked = state.holders.find((h) => h.name === step.holder)?.checked;
  const written = await storage.write(state.depth, {
    holder: step.holder,
    token: tokenOf(state, step.holder),
    value: nextValue(state, step.holder),
    ...(checked === undefined ? {} : { checked }),
    ...(state.holders.find((h) => h.name === step.holder)?.ranOut ? { overdue: true } : {}),
  });
  return { written };
}

/** The made-up clock of the path's events: its start, and the time between two steps. */
const CLOCK_START_MS = Date.UTC(2026, 0, 1);
const STEP_MS = 100;

function toWire(lab: string, events: readonly StepEvent[]): WireEvent[] {
  return events.map((event, i) => ({ ...event, id: i + 1, at: CLOCK_START_MS + i * STEP_MS, lab }));
}

export async function explore(input: {
  bounds: ExploreBounds;
  start: StoryStart;
  storage: Storage;
  /** The lab name the path's events carry. */
  lab?: string;
}): Promise<ExploreResult> {
  const { bounds, start, storage } = input;
  const lab = input.lab ?? 'explore';
  const counts: ExploreCounts = {
    states: 0,
    interleavings: 0,
    broken: 0,
    cut: 0,
    duplicates: 0,
    storageSteps: 0,
    refused: 0,
  };
  const memo = new Map<string, Explored>();
  const root = initialState(bounds, start);
  const prelude = preludeEvents(root);
  const path: StepEvent[] = [...prelude];

  const visit = async (state: ExploreState): Promise<Explored> => {
    counts.states += 1;
    const steps = enabledSteps(state, bounds);
    if (steps.length === 0) {
      const cut = bounds.depth !== undefined && enabledSteps(state, { ...bounds, depth: undefined }).length > 0;
      return { paths: 1, broken: 0, cut: cut ? 1 : 0 };
    }
    const here: Explored = { paths: 0, broken: 0, cut: 0 };
    for (const step of steps) {
      const { written, read } = await runStep(storage, state, step);
      if (step.kind === 'write' || step.kind === 'check') counts.storageSteps += 1;
      if (step.kind === 'catch-up' || step.kind === 'promote') counts.storageSteps += 1;
      if (written?.outcome === 'refused') counts.refused += 1;
      const next = applyStep(state, step, start.rule, written, read);
      path.push(next.event);
      let child: Explored;
      if (!checkHistory(toWire(lab, path)).ok) {
        child = { paths: 1, broken: 1, cut: 0, toViolation: [] };
      } else {
        const key = stateKey(next.state);
        const known = memo.get(key);
        if (known) {
          counts.duplicates += 1;
          child = known;
        } else {
          child = await visit(next.state);
          memo.set(key, child);
        }
      }
      path.pop();
      if (step.kind === 'write') await storage.undo(state.depth);
      if (step.kind === 'catch-up' || step.kind === 'promote') await storage.undo(state.depth);
      here.paths += child.paths;
      here.broken += child.broken;
      here.cut += child.cut;
      if (child.toViolation && (!here.toViolation || child.toViolation.length + 1 < here.toViolation.length)) {
        here.toViolation = [{ step, event: next.event }, ...child.toViolation];
      }
    }
    return here;
  };

  const explored = await visit(root);
  counts.interleavings = explored.paths;
  counts.broken = explored.broken;
  counts.cut = explored.cut;
  const result: ExploreResult = { bounds, counts };
  if (explored.toViolation) {
    const events = toWire(lab, [...prelude, ...explored.toViolation.map((edge) => edge.event)]);
    const violation = checkHistory(events).violations[0];
    if (violation) result.shortest = { steps: explored.toViolation.map((edge) => edge.step), events, violation };
  }
  return result;
}

/** One path walked step by step (the Explore page): what each step did, and what may come next. */
export type Walk = {
  /** The steps taken, each with its words once taken. */
  taken: { step: Step; words: string }[];
  /** The path's events as a lab's history (the up-front grants first). */
  events: WireEvent[];
  state: ExploreState;
  /** The steps enabled now, in the order `path` indexes them. */
  next: Step[];
  /** The checker's first violation on this path, if it broke (no step is enabled after it). */
  violation?: Violation;
};

/**
 * Walks `path` (indexes into each state's enabled steps) from the start, each write run by the
 * storage at its depth (one transaction, rolled back by the caller: nothing is undone here). An index
 * past the enabled steps ends the walk there: a permalink to a path that no longer exists shows its
 * longest valid prefix.
 */
export async function walk(input: {
  bounds: ExploreBounds;
  start: StoryStart;
  storage: Storage;
  path: readonly number[];
  lab?: string;
}): Promise<Walk> {
  const { bounds, start, storage } = input;
  const lab = input.lab ?? 'explore';
  let state = initialState(bounds, start);
  const events: StepEvent[] = [...preludeEvents(state)];
  const taken: Walk['taken'] = [];
  for (const index of input.path) {
    const step = enabledSteps(state, bounds)[index];
    if (!step) break;
    const { written, read } = await runStep(storage, state, step);
    const next = applyStep(state, step, start.rule, written, read);
    state = next.state;
    events.push(next.event);
    taken.push({ step, words: eventWords(next.event) });
    const verdict = checkHistory(toWire(lab, events));
    if (!verdict.ok) return { taken, events: toWire(lab, events), state, next: [], violation: verdict.violations[0] };
  }
  return { taken, events: toWire(lab, events), state, next: enabledSteps(state, bounds) };
}

/** A path's steps as indexes into each state's enabled steps (which depend on no write's outcome). */
export function stepIndexes(bounds: ExploreBounds, start: StoryStart, steps: readonly Step[]): number[] {
  let state = initialState(bounds, start);
  const indexes: number[] = [];
  for (const step of steps) {
    const index = enabledSteps(state, bounds).findIndex((s) => JSON.stringify(s) === JSON.stringify(step));
    if (index < 0) break;
    indexes.push(index);
    // Which steps come next depends on no write's outcome and no check's read.
    state = applyStep(
      state,
      step,
      start.rule,
      step.kind === 'write' ? { outcome: 'accepted' } : undefined,
      step.kind === 'check' ? 0 : undefined,
    ).state;
  }
  return indexes;
}
