import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkHistory } from '../checker/checker';
import { FENCED_PREDICATE, memoryStorage, NO_CHECK, type WritePredicate } from './memory-storage';
import { explore } from './search';
import {
  applyStep,
  type ExploreBounds,
  type ExploreState,
  enabledSteps,
  initialState,
  nextValue,
  preludeEvents,
  type Step,
  type StepEvent,
  type StoryStart,
  tokenOf,
} from './story';
import { eventWords, stepWords } from './story-words';
import { verdictSentence } from './verdict';

const sequence = (from: number): StoryStart => ({
  rule: { tokens: [from, from + 1, from + 2], writeWith: 'lease-token' },
  row: { value: 'initial', token: from - 1 },
});

const run = (predicate: WritePredicate, bounds: ExploreBounds, start = sequence(5)) =>
  explore({ bounds, start, storage: memoryStorage(predicate, start.row) });

/** Every path, one by one, with no memo: the oracle the memoized counts must equal. */
function bruteForce(predicate: WritePredicate, bounds: ExploreBounds, start: StoryStart) {
  let paths = 0;
  let broken = 0;
  const walk = (state: ExploreState, events: StepEvent[]) => {
    const steps = enabledSteps(state, bounds);
    if (steps.length === 0) paths += 1;
    for (const step of steps) {
      let written: { outcome: 'accepted' | 'stale'; storedToken?: number } | undefined;
      if (step.kind === 'write') {
        const token = tokenOf(state, step.holder);
        written = predicate(state.row.token, token)
          ? { outcome: 'accepted' }
          : { outcome: 'stale', storedToken: state.row.token };
      }
      const next = applyStep(state, step, start.rule, written);
      const path = [...events, next.event];
      const wire = path.map((e, i) => ({ ...e, id: i + 1, at: i * 100, lab: 'x' }));
      if (!checkHistory(wire).ok) {
        paths += 1;
        broken += 1;
      } else walk(next.state, path);
    }
  };
  const root = initialState(bounds, start);
  walk(root, preludeEvents(root));
  return { paths, broken };
}

const factorial = (n: number): number => (n <= 1 ? 1 : n * factorial(n - 1));

describe('the explorer on a storage in memory', () => {
  test('the fenced rule holds in every interleaving of 2 holders × 2 writes', async () => {
    const result = await run(FENCED_PREDICATE, { holders: 2, writes: 2 });
    assert.equal(result.counts.broken, 0);
    assert.ok(result.counts.interleavings > 0);
    assert.equal(result.shortest, undefined);
    assert.match(
      verdictSentence('Fenced', result, 0.1),
      /^Fenced: \d+ states, \d+ interleavings of 2 holders × 2 writes, explored in 0\.10 s: no interleaving loses a write\.$/,
    );
  });

  test('without a check, the shortest counterexample is the known five steps', async () => {
    const result = await run(NO_CHECK, { holders: 2, writes: 2 });
    assert.ok(result.counts.broken > 0);
    assert.deepEqual(result.shortest?.steps, [
      { kind: 'acquire', holder: 'A' },
      { kind: 'expire' },
      { kind: 'acquire', holder: 'B' },
      { kind: 'write', holder: 'B' },
      { kind: 'write', holder: 'A' },
    ]);
    assert.deepEqual(
      result.shortest?.events.map((e) => [e.actor, e.kind, e.token]),
      [
        ['A', 'lease_acquired', 5],
        ['A', 'lease_expired', 5],
        ['B', 'lease_acquired', 6],
        ['B', 'write_accepted', 6],
        ['A', 'write_accepted', 5],
      ],
    );
    assert.match(
      verdictSentence('No fencing', result, 0.1),
      /breaks in \d+ of \d+ interleavings .* the shortest has 5 steps: A asks/,
    );
  });

  for (const [holders, writes] of [
    [1, 3],
    [2, 1],
    [2, 3],
    [3, 2],
  ] as const) {
    test(`with the memo, the counts equal every path walked one by one (${holders} × ${writes}, both rules)`, async () => {
      for (const predicate of [FENCED_PREDICATE, NO_CHECK]) {
        const bounds = { holders, writes };
        const memoized = await run(predicate, bounds);
        assert.deepEqual(
          { paths: memoized.counts.interleavings, broken: memoized.counts.broken },
          bruteForce(predicate, bounds, sequence(5)),
        );
      }
    });
  }

  test('leases granted up front: the count is the closed form, and the memo skipped states', async () => {
    for (const [holders, writes] of [
      [2, 1],
      [2, 2],
      [2, 3],
      [3, 2],
    ] as const) {
      const result = await run(FENCED_PREDICATE, { holders, writes, leases: 'granted-up-front' });
      const multinomial = factorial(holders * writes) / factorial(writes) ** holders;
      assert.equal(result.counts.interleavings, multinomial, `${holders} × ${writes}`);
      assert.equal(result.counts.broken, 0);
      if (writes > 1) assert.ok(result.counts.duplicates > 0, 'states reached twice were not explored twice');
    }
  });

  test('careful holders: with the memo, the counts equal every path walked one by one', async () => {
    for (const [holders, writes] of [
      [1, 3],
      [2, 2],
      [2, 3],
    ] as const) {
      for (const predicate of [FENCED_PREDICATE, NO_CHECK]) {
        const bounds = { holders, writes, renew: true };
        const memoized = await run(predicate, bounds);
        assert.deepEqual(
          { paths: memoized.counts.interleavings, broken: memoized.counts.broken },
          bruteForce(predicate, bounds, sequence(5)),
          `${holders} × ${writes}`,
        );
      }
    }
  });

  test('careful holders: one holder renews before each later write and gives the lease back after its last', async () => {
    const result = await run(FENCED_PREDICATE, { holders: 1, writes: 3, renew: true });
    assert.equal(result.counts.interleavings, 1);
    const steps: string[] = [];
    const start = sequence(5);
    const bounds = { holders: 1, writes: 3, renew: true };
    let state = initialState(bounds, start);
    for (let next = enabledSteps(state, bounds); next.length > 0; next = enabledSteps(state, bounds)) {
      const step = next[0] as Step;
      steps.push(step.kind);
      state = applyStep(state, step, start.rule, step.kind === 'write' ? { outcome: 'accepted' } : undefined).state;
    }
    assert.deepEqual(steps, ['acquire', 'write', 'renew', 'write', 'renew', 'write', 'release']);
    assert.equal(state.leaseHolder, undefined, 'the lease is free once given back');
  });

  test('careful holders: a renewal does not save an unfenced row, and a fenced row holds', async () => {
    const fenced = await run(FENCED_PREDICATE, { holders: 2, writes: 2, renew: true });
    assert.equal(fenced.counts.broken, 0);
    const unfenced = await run(NO_CHECK, { holders: 2, writes: 2, renew: true });
    assert.ok(unfenced.counts.broken > 0);
    // The lesson: A renewed, was delayed between its renewal and its write, and its write still landed.
    const start = sequence(5);
    const bounds = { holders: 2, writes: 2, renew: true };
    let state = initialState(bounds, start);
    const events: StepEvent[] = [];
    for (const step of [
      { kind: 'acquire', holder: 'A' },
      { kind: 'write', holder: 'A' },
      { kind: 'renew', holder: 'A' },
      { kind: 'expire' },
      { kind: 'acquire', holder: 'B' },
      { kind: 'write', holder: 'B' },
      { kind: 'write', holder: 'A' },
    ] as Step[]) {
      assert.ok(
        enabledSteps(state, bounds).some((s) => JSON.stringify(s) === JSON.stringify(step)),
        `${JSON.stringify(step)} is enabled`,
      );
      const next = applyStep(state, step, start.rule, step.kind === 'write' ? { outcome: 'accepted' } : undefined);
      state = next.state;
      events.push(next.event);
    }
    assert.equal(eventWords(events[2] as StepEvent), 'A renews its lease (token 5): it still holds it');
    const verdict = checkHistory(events.map((e, i) => ({ ...e, id: i + 1, at: i * 100, lab: 'x' })));
    assert.equal(verdict.ok, false, 'the write after a renewal, once the lease ran out, is a lost update');
  });

  test('careful holders: a refused renewal means the holder writes no more', () => {
    const start = sequence(5);
    const bounds = { holders: 2, writes: 2, renew: true };
    let state = initialState(bounds, start);
    for (const step of [
      { kind: 'acquire', holder: 'A' },
      { kind: 'write', holder: 'A' },
      { kind: 'expire' },
      { kind: 'acquire', holder: 'B' },
    ] as Step[]) {
      state = applyStep(state, step, start.rule, step.kind === 'write' ? { outcome: 'accepted' } : undefined).state;
    }
    assert.equal(stepWords(state, { kind: 'renew', holder: 'A' }), 'A renews its lease (token 5)');
    const refused = applyStep(state, { kind: 'renew', holder: 'A' }, start.rule);
    assert.equal(
      eventWords(refused.event),
      'A asks to renew its lease (token 5) and is refused, since B holds it with token 6: A knows it lost the lease and writes no more',
    );
    assert.deepEqual(
      enabledSteps(refused.state, bounds).map((s) => ('holder' in s ? `${s.kind} ${s.holder}` : s.kind)),
      ['write B'],
    );
  });

  test('a depth bound cuts paths and says so', async () => {
    const result = await run(FENCED_PREDICATE, { holders: 2, writes: 3, depth: 3 });
    assert.ok(result.counts.cut > 0);
    assert.match(verdictSentence('Fenced', result, 1), /cut at 3 steps/);
  });

  test('every write is undone: the storage ends as it began', async () => {
    const start = sequence(5);
    const storage = memoryStorage(NO_CHECK, start.row);
    await explore({ bounds: { holders: 2, writes: 2 }, start, storage });
    assert.deepEqual(storage.row(), start.row);
  });

  test('on several storages side by side: the same counts and the same shortest way as on one', async () => {
    // Each storage answers after a few turns of the event loop, differently each call, so that the
    // branches run on them really interleave and wait on each other's states.
    let seed = 7;
    const turns = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % 4;
    };
    const slow = (predicate: WritePredicate, row: StoryStart['row']) => {
      const inner = memoryStorage(predicate, row);
      const later = async () => {
        for (let i = turns(); i > 0; i--) await new Promise((resolve) => setImmediate(resolve));
      };
      return {
        write: async (depth: number, write: Parameters<typeof inner.write>[1]) => {
          await later();
          return inner.write(depth, write);
        },
        read: async (depth: number) => {
          await later();
          return inner.read(depth);
        },
        undo: async (depth: number) => {
          await later();
          return inner.undo(depth);
        },
      };
    };
    const cases: [WritePredicate, ExploreBounds][] = [
      [FENCED_PREDICATE, { holders: 2, writes: 2 }],
      [NO_CHECK, { holders: 2, writes: 2 }],
      [NO_CHECK, { holders: 3, writes: 2 }],
      [FENCED_PREDICATE, { holders: 3, writes: 2, renew: true }],
      [NO_CHECK, { holders: 2, writes: 3, renew: true }],
    ];
    for (const [predicate, bounds] of cases) {
      const start = sequence(5);
      const alone = await explore({ bounds, start, storage: memoryStorage(predicate, start.row) });
      const sideBySide = await explore({
        bounds,
        start,
        storage: slow(predicate, start.row),
        moreStorages: [slow(predicate, start.row), slow(predicate, start.row)],
      });
      assert.deepEqual(sideBySide.counts, alone.counts, JSON.stringify(bounds));
      assert.deepEqual(sideBySide.shortest, alone.shortest, JSON.stringify(bounds));
    }
  });

  test('a value and a token are what a holder believes', () => {
    const state = initialState({ holders: 2, writes: 1, leases: 'granted-up-front' }, sequence(9));
    assert.equal(tokenOf(state, 'B'), 10);
    assert.equal(nextValue(state, 'A'), 'A1');
  });
});

describe('the words of a step', () => {
  test('before it is taken, and once taken', () => {
    const start = sequence(5);
    let state = initialState({ holders: 2, writes: 1 }, start);
    assert.equal(stepWords(state, { kind: 'acquire', holder: 'A' }), 'A asks for the lease');
    const granted = applyStep(state, { kind: 'acquire', holder: 'A' }, start.rule);
    state = granted.state;
    assert.equal(eventWords(granted.event), 'A asks for the lease and is granted token 5');
    assert.equal(stepWords(state, { kind: 'expire' }), "A's lease runs out");
    assert.equal(stepWords(state, { kind: 'write', holder: 'A' }), "A's write with token 5 reaches the row");
    const stale = applyStep(state, { kind: 'write', holder: 'A' }, start.rule, { outcome: 'stale', storedToken: 6 });
    assert.equal(
      eventWords(stale.event),
      `A's write of "A1" with token 5 reaches the row: refused as stale (the row holds token 6)`,
    );
  });

  test('a split write: the check is a step of its own, then the write it allows or gives up', () => {
    const start = { ...sequence(5), checkFirst: true };
    let state = applyStep(
      initialState({ holders: 2, writes: 1 }, start),
      { kind: 'acquire', holder: 'A' },
      start.rule,
    ).state;
    assert.deepEqual(enabledSteps(state, { holders: 2, writes: 1 }), [
      { kind: 'expire' },
      { kind: 'check', holder: 'A' },
    ]);
    assert.equal(stepWords(state, { kind: 'check', holder: 'A' }), "A reads the row's token to check its own (5)");
    const checked = applyStep(state, { kind: 'check', holder: 'A' }, start.rule, undefined, 6);
    assert.equal(
      eventWords(checked.event),
      `A reads the row's token, 6, and checks its own, 5: fails: it will give up its write of "A1"`,
    );
    state = checked.state;
    assert.deepEqual(enabledSteps(state, { holders: 2, writes: 1 }), [
      { kind: 'expire' },
      { kind: 'write', holder: 'A' },
    ]);
    const givenUp = applyStep(state, { kind: 'write', holder: 'A' }, start.rule, { outcome: 'stale', storedToken: 6 });
    assert.equal(eventWords(givenUp.event), `A's write of "A1" with token 5 is given up: its check read a newer token`);
    assert.equal(givenUp.state.holders[0]?.checked, undefined, 'the next write checks again');
  });
});
