import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkHistory } from '../checker/checker';
import type { Replication } from './failover-story';
import { pairMemoryStorage } from './memory-storage';
import { explore } from './search';
import {
  applyStep,
  type ExploreBounds,
  type ExploreState,
  enabledSteps,
  initialState,
  type Step,
  type StepEvent,
  type StoryStart,
  tokenOf,
  type WriteOutcome,
} from './story';
import { eventWords, stepWords } from './story-words';

const ROW = { value: 'initial', token: 0 };
const startOf = (replication: Replication): StoryStart => ({
  rule: { tokens: [], writeWith: 'lease-token' },
  row: ROW,
  failover: { replication },
});

const wire = (events: readonly StepEvent[]) =>
  events.map((e, i) => ({ ...e, id: i + 1, at: i * 100, lab: 'failover' }));

/** The fenced write on the serving server's row, as the story tracks it (the storage's answer, with no storage). */
const fencedOn = (state: ExploreState, step: Step): WriteOutcome | undefined => {
  if (step.kind !== 'write') return undefined;
  return state.row.token <= tokenOf(state, step.holder)
    ? { outcome: 'accepted' }
    : { outcome: 'stale', storedToken: state.row.token };
};

/** Every path, one by one, with no memo and no storage: the oracle the memoized counts on the pair's storage must equal. */
function bruteForce(bounds: ExploreBounds, start: StoryStart) {
  let paths = 0;
  let broken = 0;
  const walk = (state: ExploreState, events: StepEvent[]) => {
    const steps = enabledSteps(state, bounds);
    if (steps.length === 0) paths += 1;
    for (const step of steps) {
      const next = applyStep(state, step, start.rule, fencedOn(state, step));
      const path = [...events, next.event];
      if (!checkHistory(wire(path)).ok) {
        paths += 1;
        broken += 1;
      } else walk(next.state, path);
    }
  };
  walk(initialState(bounds, start), []);
  return { paths, broken };
}

/** Plays `steps` from the start (each must be enabled), the writes fenced on the serving row. */
function play(replication: Replication, bounds: ExploreBounds, steps: readonly Step[]) {
  const start = startOf(replication);
  let state = initialState(bounds, start);
  const events: StepEvent[] = [];
  for (const step of steps) {
    assert.ok(
      enabledSteps(state, bounds).some((s) => JSON.stringify(s) === JSON.stringify(step)),
      `${JSON.stringify(step)} is enabled after ${events.length} steps`,
    );
    const next = applyStep(state, step, start.rule, fencedOn(state, step));
    state = next.state;
    events.push(next.event);
  }
  return { state, events };
}

const A = 'A' as const;
const B = 'B' as const;

/**
 * The lab's known story (lib/supervisor/failover/failover-story.ts): A writes and the standby has it; A's
 * lease runs out, B takes over and writes, acknowledged by the primary; the primary dies before the
 * standby catches up; promoted, and A writes late with its old token.
 */
const KNOWN_STORY: Step[] = [
  { kind: 'acquire', holder: A },
  { kind: 'write', holder: A },
  { kind: 'catch-up' },
  { kind: 'expire' },
  { kind: 'acquire', holder: B },
  { kind: 'write', holder: B },
  { kind: 'promote' },
  { kind: 'write', holder: A },
];

describe('the failover story in memory', () => {
  for (const [replication, holders, writes] of [
    ['async', 1, 3],
    ['async', 2, 1],
    ['async', 2, 2],
    ['sync', 2, 2],
    ['sync', 2, 3],
    ['sync', 3, 1],
  ] as const) {
    test(`with the memo, on the pair's storage, the counts equal every path walked one by one (${replication}, ${holders} × ${writes})`, async () => {
      const bounds = { holders, writes };
      const start = startOf(replication);
      const memoized = await explore({ bounds, start, storage: pairMemoryStorage(replication, ROW), lab: 'failover' });
      assert.deepEqual(
        { paths: memoized.counts.interleavings, broken: memoized.counts.broken },
        bruteForce(bounds, start),
      );
      assert.equal(memoized.counts.broken > 0, replication === 'async');
    });
  }

  test('on three pair storages side by side: the same counts and the same shortest way as on one', async () => {
    // A branch taken by another storage replays its path there, the catch-ups and the promotion too.
    for (const replication of ['async', 'sync'] as const) {
      const bounds = { holders: 2, writes: 2 };
      const start = startOf(replication);
      const alone = await explore({ bounds, start, storage: pairMemoryStorage(replication, ROW), lab: 'failover' });
      const sideBySide = await explore({
        bounds,
        start,
        storage: pairMemoryStorage(replication, ROW),
        moreStorages: [pairMemoryStorage(replication, ROW), pairMemoryStorage(replication, ROW)],
        lab: 'failover',
      });
      assert.deepEqual(sideBySide.counts, alone.counts, replication);
      assert.deepEqual(sideBySide.shortest, alone.shortest, replication);
    }
  });

  test('asynchronous: it breaks, and the one checker names the shortest: an acknowledged write lost at the promotion', async () => {
    const result = await explore({
      bounds: { holders: 2, writes: 2 },
      start: startOf('async'),
      storage: pairMemoryStorage('async', ROW),
      lab: 'failover',
    });
    assert.deepEqual(result.shortest?.steps, [
      { kind: 'acquire', holder: A },
      { kind: 'write', holder: A },
      { kind: 'promote' },
    ]);
    assert.equal(result.shortest?.violation.findings[0]?.rule, 'acknowledged-write-lost');
    assert.deepEqual(result.shortest?.events.map(eventWords), [
      'A asks for the lease and is granted token 1 on the primary',
      `A's write of "A1" with token 1 reaches the row on the primary: accepted`,
      'The primary dies; the standby, 1 grant and 1 write behind, is promoted: its row holds "initial" with token 0, it holds no lease, and its next token is 1',
    ]);
  });

  test('asynchronous: the known story breaks at the promotion, and A’s late write is accepted over B’s', () => {
    const bounds = { holders: 2, writes: 2 };
    const { state, events } = play('async', bounds, KNOWN_STORY);
    assert.equal(events[7]?.kind, 'write_accepted', 'the promoted standby’s row holds A’s token 1: A’s token 1 passes');
    assert.deepEqual(state.row, { value: 'A2', token: 1 });
    const atPromotion = checkHistory(wire(events.slice(0, 7)));
    assert.deepEqual(
      atPromotion.violations.flatMap((v) => v.findings.map((f) => f.rule)),
      ['acknowledged-write-lost', 'acknowledged-write-lost'],
      'B’s write and B’s grant, both acknowledged by the primary alone',
    );
    const whole = checkHistory(wire(events));
    assert.deepEqual(
      whole.violations[0]?.findings.map((f) => f.rule),
      ['acknowledged-write-lost', 'stale-write-accepted'],
      'the late write is told inside the loss it follows from',
    );
    assert.match(
      whole.violations[0]?.findings[1]?.message ?? '',
      /A wrote "A2" with token 1 .* B's write "B1" with the newer token 2/,
    );
  });

  test('asynchronous: once the standby caught up with B, the promotion loses nothing and A’s late write is refused', () => {
    const steps: Step[] = [
      ...KNOWN_STORY.slice(0, 6),
      { kind: 'catch-up' },
      { kind: 'promote' },
      { kind: 'write', holder: A },
    ];
    const { events } = play('async', { holders: 2, writes: 2 }, steps);
    assert.equal(
      eventWords(events[6] as StepEvent),
      "The standby catches up (it was 1 grant and 1 write behind): its row, lease and sequence are the primary's",
    );
    assert.equal(events[8]?.kind, 'write_rejected');
    assert.equal(checkHistory(wire(events)).ok, true);
  });

  test('tokens: the promoted standby mints from above its last sequence record, or from 1 if it never had one', () => {
    const bounds = { holders: 2, writes: 1 };
    const caughtUp = play('async', bounds, [{ kind: 'acquire', holder: A }, { kind: 'catch-up' }, { kind: 'promote' }]);
    assert.equal(caughtUp.state.leaseHolder, A, 'the standby has A’s grant: the lease still runs');
    const next = play('async', bounds, [
      { kind: 'acquire', holder: A },
      { kind: 'catch-up' },
      { kind: 'promote' },
      { kind: 'expire' },
      { kind: 'acquire', holder: B },
    ]);
    assert.equal(tokenOf(next.state, B), 34, 'the first grant logged 1 + 32: the promoted standby goes on at 34');
    assert.equal(
      eventWords(next.events[4] as StepEvent),
      'B asks for the lease and is granted token 34 on the promoted standby',
    );

    const never = play('async', bounds, [
      { kind: 'acquire', holder: A },
      { kind: 'promote' },
      { kind: 'acquire', holder: B },
    ]);
    assert.equal(never.state.leaseHolder, B, 'the promoted standby never had A’s grant: the lease was free');
    assert.equal(tokenOf(never.state, B), 1);
    assert.deepEqual(
      checkHistory(wire(never.events)).violations.flatMap((v) => v.findings.map((f) => f.rule)),
      ['token-granted-twice'],
    );
  });

  test('synchronous: nothing to catch up, the promotion loses nothing, the known story’s late write is refused', async () => {
    const bounds = { holders: 2, writes: 2 };
    const noCatchUp = KNOWN_STORY.filter((step) => step.kind !== 'catch-up');
    const { state, events } = play('sync', bounds, noCatchUp);
    assert.equal(events[6]?.kind, 'write_rejected');
    assert.deepEqual(state.row, { value: 'B1', token: 2 });
    assert.equal(
      eventWords(events[5] as StepEvent),
      `The primary dies; the standby, with everything acknowledged, is promoted: its row holds "B1" with token 2, its lease is B's (token 2), and its next token is 34`,
    );
    assert.equal(checkHistory(wire(events)).ok, true);
    const result = await explore({ bounds, start: startOf('sync'), storage: pairMemoryStorage('sync', ROW) });
    assert.equal(result.counts.broken, 0);
  });

  test('the pair’s steps: a catch-up only while the standby lacks something, one promotion, and their words', () => {
    const bounds = { holders: 2, writes: 1 };
    const kinds = (state: ExploreState) => enabledSteps(state, bounds).map((s) => s.kind);
    const fresh = initialState(bounds, startOf('async'));
    assert.deepEqual(kinds(fresh), ['acquire', 'acquire', 'promote']);
    const granted = play('async', bounds, [{ kind: 'acquire', holder: A }]).state;
    assert.deepEqual(kinds(granted), ['expire', 'write', 'catch-up', 'promote']);
    assert.equal(stepWords(granted, { kind: 'catch-up' }), 'The standby catches up');
    assert.equal(stepWords(granted, { kind: 'promote' }), 'The primary dies; the standby, 1 grant behind, is promoted');
    const promoted = play('async', bounds, [{ kind: 'acquire', holder: A }, { kind: 'promote' }]).state;
    assert.deepEqual(kinds(promoted), ['acquire', 'write'], 'no second promotion, no catch-up after it');
    const sync = play('sync', bounds, [{ kind: 'acquire', holder: A }]).state;
    assert.deepEqual(kinds(sync), ['expire', 'write', 'promote']);
    assert.equal(
      stepWords(sync, { kind: 'promote' }),
      'The primary dies; the standby, with everything acknowledged, is promoted',
    );
  });

  test('every write and every pair step is undone: the storage ends as it began', async () => {
    const storage = pairMemoryStorage('async', ROW);
    await explore({ bounds: { holders: 3, writes: 1 }, start: startOf('async'), storage });
    assert.deepEqual(storage.rows(), { primary: ROW, standby: ROW, promoted: false });
  });
});
