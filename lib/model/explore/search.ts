import { checkHistory, createHistoryChecker, type HistoryChecker, type Violation } from '../checker/checker';
import type { WireEvent } from '../core/wire';
import { withLeaseEnds } from './lease-ends';
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
 * With more than one storage (sessions of their own on the database), shallow states' next steps run
 * side by side, one memo for all (a state being explored is waited for, not explored again), so the
 * counts are those of one storage; each state's children are summed in their own order, so the
 * shortest counterexample is too.
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

/** The write a step sends to the storage, as the state says: the holder's token and next value. */
function storageWriteOf(state: ExploreState, holder: HolderName): StorageWrite {
  const h = state.holders.find((x) => x.name === holder);
  return {
    holder,
    token: tokenOf(state, holder),
    value: nextValue(state, holder),
    ...(h?.checked === undefined ? {} : { checked: h.checked }),
    ...(h?.ranOut ? { overdue: true } : {}),
  };
}

/** What the storage says of a step: a write's outcome, a check's read; nothing for the lease's steps. */
async function runStep(
  storage: Storage,
  state: ExploreState,
  step: Step,
): Promise<{ written?: WriteOutcome; read?: number; op?: PathOp }> {
  if (step.kind === 'check') return { read: await storage.read(state.depth) };
  if (step.kind === 'catch-up' || step.kind === 'promote') {
    const op: PathOp = { depth: state.depth, pair: step.kind, outcome: 'done' };
    await runOp(storage, op);
    return { op };
  }
  if (step.kind !== 'write') return {};
  const write = storageWriteOf(state, step.holder);
  const written = await storage.write(state.depth, write);
  return { written, op: { depth: state.depth, write, outcome: written.outcome } };
}

/**
 * A step on a path that changes the storage, at its depth: a write, with the outcome the storage gave
 * it (a replay must give the same), or the failover pair's catch-up or promotion.
 */
type PathOp = { depth: number; write?: StorageWrite; pair?: 'catch-up' | 'promote'; outcome: string };

/** Runs a path's step on a storage again (or for the first time, for the pair's steps): its outcome. */
async function runOp(storage: Storage, op: PathOp): Promise<string> {
  if (op.pair) {
    if (!storage.pair) throw new RangeError(`this storage has no pair for a ${op.pair} step`);
    await storage.pair(op.depth, op.pair);
    return 'done';
  }
  if (!op.write) throw new RangeError('a path step with neither a write nor a pair step');
  return (await storage.write(op.depth, op.write)).outcome;
}

/** The made-up clock of the path's events: its start, and the time between two steps. */
export const CLOCK_START_MS = Date.UTC(2026, 0, 1);
const STEP_MS = 100;

function toWire(lab: string, events: readonly StepEvent[]): WireEvent[] {
  return events.map((event, i) => wireAt(lab, event, i));
}

/**
 * A whole path's events as a page draws them and a file replays them: each lease with the moment its
 * path ended it (lease-ends.ts). Not for the search's judging on the way, which sees a prefix only.
 */
const drawn = (lab: string, events: readonly StepEvent[]): WireEvent[] => withLeaseEnds(toWire(lab, events), STEP_MS);

/** The path's `i`th event as the lab's history has it: the same on every path that shares the prefix. */
const wireAt = (lab: string, event: StepEvent, i: number): WireEvent => ({
  ...event,
  id: i + 1,
  at: CLOCK_START_MS + i * STEP_MS,
  lab,
});

/**
 * The checker of a walker's path, fed as the path grows (judging the step's event only, after the
 * events it already judged, is judging the whole path: createHistoryChecker's append). It has judged
 * `judged` events of the path; a step back below them drops it, and the next step judges the path anew.
 */
type Judge = { checker: HistoryChecker; judged: number };

/** Whether the walker's path, its newest event included, breaks a rule (the one checker's verdict). */
function breaks(walker: Walker): boolean {
  const { events } = walker;
  const judge: Judge = walker.judge ?? { checker: createHistoryChecker(), judged: 0 };
  walker.judge = judge;
  judge.checker.append(events, judge.judged, events.length);
  judge.judged = events.length;
  return !judge.checker.verdict().ok;
}

/** One storage the search runs steps on (a session of its own on the database), and the writes it holds now. */
type Lane = { storage: Storage; applied: PathOp[] };

/**
 * Where a branch of the search stands: its path's events (as the lab's history: each is pushed once, on
 * its step, not made again for every later step) and writes, and the lane it holds (if any).
 */
type Walker = { lane?: Lane; events: WireEvent[]; writes: PathOp[]; judge?: Judge };

/**
 * States shallower than this have their next steps taken side by side, each on whichever lane is free
 * (when there is more than one); deeper, a branch keeps its lane. A lane taken by a branch first brings
 * its storage to the branch's path (undo to the common part, then the path's own writes again).
 */
const SIDE_BY_SIDE_DEPTH = 4;

/** The free lanes, handed out most recently freed first (its path is likeliest to be the next one's). */
function lanePool(storages: readonly Storage[]) {
  const free: Lane[] = storages.map((storage) => ({ storage, applied: [] }));
  const waiting: { take: (lane: Lane) => void; fail: (error: unknown) => void }[] = [];
  let failure: { error: unknown } | undefined;
  return {
    size: storages.length,
    acquire(): Promise<Lane> {
      if (failure) return Promise.reject(failure.error);
      const lane = free.pop();
      if (lane) return Promise.resolve(lane);
      return new Promise((take, fail) => waiting.push({ take, fail }));
    },
    release(lane: Lane): void {
      const next = waiting.shift();
      if (next) next.take(lane);
      else free.push(lane);
    },
    /** A branch failed: every branch waiting for a lane fails too (the caller ends the sessions). */
    fail(error: unknown): void {
      failure ??= { error };
      for (const w of waiting.splice(0)) w.fail(error);
    },
  };
}

const sameOp = (a: PathOp, b: PathOp) =>
  a.depth === b.depth && a.pair === b.pair && JSON.stringify(a.write) === JSON.stringify(b.write);

/** Brings a lane's storage to a path: undo what differs, run the path's steps after it (each must end as it did). */
async function moveLane(lane: Lane, to: readonly PathOp[]): Promise<number> {
  let common = 0;
  while (
    common < lane.applied.length &&
    common < to.length &&
    sameOp(lane.applied[common] as PathOp, to[common] as PathOp)
  ) {
    common += 1;
  }
  const first = lane.applied[common];
  if (first) {
    await lane.storage.undo(first.depth);
    lane.applied.length = common;
  }
  for (const op of to.slice(common)) {
    const outcome = await runOp(lane.storage, op);
    if (outcome !== op.outcome) {
      throw new Error(`a step replayed on another session ended ${outcome}, not ${op.outcome} as it first did`);
    }
    lane.applied.push(op);
  }
  return to.length - common;
}

type MemoEntry = { result?: Explored; promise: Promise<Explored> };

export async function explore(input: {
  bounds: ExploreBounds;
  start: StoryStart;
  storage: Storage;
  /**
   * More storages, each at the same start (sessions of their own on the database): the search then
   * takes shallow states' next steps side by side, one memo for all, with the same counts and the same
   * shortest counterexample as with one.
   */
  moreStorages?: readonly Storage[];
  /** The lab name the path's events carry. */
  lab?: string;
}): Promise<ExploreResult> {
  const { bounds, start } = input;
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
  const lanes = lanePool([input.storage, ...(input.moreStorages ?? [])]);
  const memo = new Map<string, MemoEntry>();
  const root = initialState(bounds, start);
  const prelude = preludeEvents(root);

  const holdLane = async (walker: Walker): Promise<Lane> => {
    if (walker.lane) return walker.lane;
    const lane = await lanes.acquire();
    walker.lane = lane;
    await moveLane(lane, walker.writes);
    return lane;
  };
  const letGo = (walker: Walker): void => {
    if (walker.lane) lanes.release(walker.lane);
    walker.lane = undefined;
  };

  /** One step from `state` on the walker's path, and everything after it; the storage is back as it was after. */
  const take = async (state: ExploreState, step: Step, walker: Walker): Promise<{ edge: Edge; child: Explored }> => {
    const lane = await holdLane(walker);
    const { written, read, op } = await runStep(lane.storage, state, step);
    if (op || step.kind === 'check') counts.storageSteps += 1;
    if (written?.outcome === 'refused') counts.refused += 1;
    const next = applyStep(state, step, start.rule, written, read);
    if (op) {
      lane.applied.push(op);
      walker.writes.push(op);
    }
    walker.events.push(wireAt(lab, next.event, walker.events.length));
    let child: Explored;
    if (breaks(walker)) {
      child = { paths: 1, broken: 1, cut: 0, toViolation: [] };
    } else {
      const key = stateKey(next.state);
      const known = memo.get(key);
      if (known) {
        counts.duplicates += 1;
        if (known.result) child = known.result;
        else {
          // Another branch explores it now: wait for it without holding a lane.
          letGo(walker);
          child = await known.promise;
        }
      } else {
        let settle: { resolve: (e: Explored) => void; reject: (error: unknown) => void } | undefined;
        const entry: MemoEntry = { promise: new Promise((resolve, reject) => (settle = { resolve, reject })) };
        // Its failure is the branch's, thrown below; a waiter that never comes must not make it unhandled.
        entry.promise.catch(() => undefined);
        memo.set(key, entry);
        try {
          child = await visit(next.state, walker);
        } catch (error) {
          settle?.reject(error);
          throw error;
        }
        entry.result = child;
        settle?.resolve(child);
      }
    }
    walker.events.pop();
    if (walker.judge && walker.judge.judged > walker.events.length) walker.judge = undefined;
    if (op) {
      walker.writes.pop();
      if (walker.lane) {
        await walker.lane.storage.undo(state.depth);
        walker.lane.applied = walker.lane.applied.filter((w) => w.depth < state.depth);
      }
    }
    return { edge: { step, event: next.event }, child };
  };

  const visit = async (state: ExploreState, walker: Walker): Promise<Explored> => {
    counts.states += 1;
    const steps = enabledSteps(state, bounds);
    if (steps.length === 0) {
      const cut = bounds.depth !== undefined && enabledSteps(state, { ...bounds, depth: undefined }).length > 0;
      return { paths: 1, broken: 0, cut: cut ? 1 : 0 };
    }
    let taken: { edge: Edge; child: Explored }[];
    if (lanes.size > 1 && state.depth < SIDE_BY_SIDE_DEPTH) {
      letGo(walker);
      taken = await Promise.all(
        steps.map(async (step) => {
          const branch: Walker = { events: [...walker.events], writes: [...walker.writes] };
          try {
            return await take(state, step, branch);
          } catch (error) {
            lanes.fail(error);
            throw error;
          } finally {
            letGo(branch);
          }
        }),
      );
    } else {
      taken = [];
      for (const step of steps) taken.push(await take(state, step, walker));
    }
    // Folded in the steps' own order, whichever branch ended first: the shortest way is the same every run.
    const here: Explored = { paths: 0, broken: 0, cut: 0 };
    for (const { edge, child } of taken) {
      here.paths += child.paths;
      here.broken += child.broken;
      here.cut += child.cut;
      if (child.toViolation && (!here.toViolation || child.toViolation.length + 1 < here.toViolation.length)) {
        here.toViolation = [edge, ...child.toViolation];
      }
    }
    return here;
  };

  const explored = await visit(root, { events: toWire(lab, prelude), writes: [] });
  counts.interleavings = explored.paths;
  counts.broken = explored.broken;
  counts.cut = explored.cut;
  const result: ExploreResult = { bounds, counts };
  if (explored.toViolation) {
    const events = drawn(lab, [...prelude, ...explored.toViolation.map((edge) => edge.event)]);
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
    const verdict = checkHistory(drawn(lab, events));
    if (!verdict.ok) return { taken, events: drawn(lab, events), state, next: [], violation: verdict.violations[0] };
  }
  return { taken, events: drawn(lab, events), state, next: enabledSteps(state, bounds) };
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
