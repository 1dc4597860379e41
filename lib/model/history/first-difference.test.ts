import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handMade, recorded } from '../../testing/histories';
import { walkthroughFor } from '../walkthrough/walkthrough';
import { describeDifference, firstDifference, firstWriteDifference, runWrites } from './first-difference';
import { storyPlaceOf } from './history-diff-story';

const { ev } = handMade(Date.UTC(2026, 11, 1));

/**
 * The pause in the per-process-counter lab, as that lab records it: the leases carry the lease
 * table's tokens, the writes each worker's own counter, which starts at 1 in every process.
 */
const perProcessCounter = [
  ev(1, 0, 'A', 'worker_started'),
  ev(2, 1, 'A', 'lease_acquired', { token: 5 }),
  ev(3, 2, 'A', 'write_accepted', { token: 1, outcome: 'accepted' }),
  ev(4, 3, 'A', 'pause_started'),
  ev(5, 4, 'B', 'worker_started'),
  ev(6, 9, 'A', 'lease_expired', { token: 5 }),
  ev(7, 10, 'B', 'lease_acquired', { token: 6 }),
  ev(8, 11, 'B', 'write_accepted', { token: 1, outcome: 'accepted' }),
  ev(9, 14, 'A', 'pause_ended'),
  ev(10, 15, 'A', 'write_accepted', { token: 1, outcome: 'accepted' }),
  ev(11, 16, 'A', 'lease_lost', { token: 5 }),
];

describe('where two runs first differ: the first write whose outcome differs', () => {
  test('the fenced and the unfenced pause part at A’s late write: rejected in one, accepted in the other', () => {
    const fenced = recorded('fenced');
    const unfenced = recorded('no-fencing');
    const d = firstDifference(fenced, unfenced);
    assert.ok(d);
    assert.equal(d.of, 'write');
    assert.equal(d.holder, 'A');
    assert.equal(fenced.find((e) => e.id === d.a?.eventId)?.kind, 'write_rejected');
    assert.equal(unfenced.find((e) => e.id === d.b?.eventId)?.kind, 'write_accepted');
    assert.match(
      d.a?.words ?? '',
      /A's write with token #1 \(62\) was rejected as stale: the row held token #2 \(63\)/,
    );
    assert.match(d.b?.words ?? '', /A's write with token #1 \(64\) was accepted/);
    assert.match(
      describeDifference(d, { a: 'Fenced', b: 'No fencing' }),
      /^First difference, A's writes after it woke up: in Fenced, A's write .* rejected .*; in No fencing, A's write .* accepted\.$/,
    );
  });

  test('fenced against the per-process counter: not A’s grant, whose token ranks differently, but its late write', () => {
    const fenced = recorded('fenced');
    const d = firstDifference(fenced, perProcessCounter);
    assert.ok(d);
    assert.equal(d.of, 'write');
    assert.equal(d.holder, 'A');
    assert.equal(d.after, 'after it woke up');
    assert.equal(d.a?.eventId, 258);
    assert.equal(d.b?.eventId, 10);
    assert.match(d.a?.words ?? '', /was rejected as stale/);
    assert.match(d.b?.words ?? '', /^A's write with token #1 \(1\) was accepted$/);
  });

  test("each side names the walkthrough's step it was at, as the walkthrough numbers and titles it", () => {
    const fenced = recorded('fenced');
    const unfenced = recorded('no-fencing');
    const d = firstDifference(fenced, unfenced);
    assert.ok(d);
    const places = { a: storyPlaceOf('fenced', fenced, d.a), b: storyPlaceOf('no-fencing', unfenced, d.b) };
    const steps = walkthroughFor('fenced');
    // A's late write completes its step and the last (told with it): it is placed where the walkthrough tells it.
    const late = steps.findIndex((step) => step.id === 'a-wakes');
    assert.equal(places.a, `at the walkthrough's step ${late + 1} of ${steps.length}, “${steps[late]?.title}”`);
    assert.match(
      describeDifference(d, { a: 'Fenced', b: 'No fencing' }, places),
      new RegExp(
        `^First difference, A's writes after it woke up: in Fenced \\(at the walkthrough's step ${late + 1} of 7, `,
      ),
    );
    assert.equal(storyPlaceOf('your-guard', fenced, d.a), undefined, 'a kind without the walkthrough says nothing');
  });

  test('a write made in one run only counts after the writes that differ, and is said to be missing', () => {
    const fenced = recorded('fenced');
    const cut = fenced.slice(0, 8);
    const d = firstDifference(fenced, cut);
    assert.ok(d);
    assert.equal(d.of, 'write');
    assert.equal(d.b, undefined);
    assert.equal(d.holder, 'B', "B's write comes before A's late one");
    assert.match(describeDifference(d, { a: 'whole', b: 'cut' }), /cut has no such write/);
  });

  test('how many writes a holder made after a step does not count, nor their tokens; a new outcome does', () => {
    const a = [
      ev(1, 0, 'A', 'lease_acquired', { token: 1 }),
      ev(2, 1, 'A', 'write_accepted', { token: 1, outcome: 'accepted' }),
      ev(3, 2, 'A', 'pause_started'),
    ];
    const b = [
      ev(1, 0, 'A', 'lease_acquired', { token: 1 }),
      ev(2, 1, 'A', 'write_accepted', { token: 1, outcome: 'accepted' }),
      ev(3, 2, 'A', 'lease_released', { token: 1 }),
    ];
    const more = [
      ev(1, 0, 'A', 'lease_acquired', { token: 4 }),
      ev(2, 1, 'A', 'write_accepted', { token: 4, outcome: 'accepted' }),
      ev(3, 1.5, 'A', 'write_accepted', { token: 4, outcome: 'accepted' }),
      ev(4, 1.7, 'A', 'write_accepted', { token: 4, outcome: 'accepted' }),
      ev(5, 2, 'A', 'pause_started'),
    ];
    assert.equal(firstWriteDifference(a, more), undefined);
    assert.deepEqual(
      [...runWrites(more).values()].map((g) => [g.holder, g.after, g.writes.map((w) => [w.key, w.repeats])]),
      [['A', 'after it took the lease', [['accepted', 3]]]],
    );
    const refused = [...more.slice(0, 3), ev(4, 1.7, 'A', 'write_rejected', { token: 4, outcome: 'stale' })];
    const d0 = firstDifference(more, refused);
    assert.equal(d0?.a?.eventId, undefined, 'the run with only accepted writes has no such write');
    assert.equal(d0?.b?.eventId, 4);
    assert.match(
      describeDifference(d0, { a: 'x', b: 'y' }),
      /^First difference, A's writes after it took the lease: x has no such write .*; in y, A's write with token #1 \(4\) was rejected as stale\.$/,
    );
    const d = firstDifference(a, b);
    assert.equal(d?.of, 'step');
    assert.equal(
      describeDifference(d, { a: 'x', b: 'y' }),
      'First difference, every write came out the same; the 3rd thing A did: in x, A froze; in y, A released its lease (token #1 (1)).',
    );
    assert.equal(firstDifference(a, a), undefined);
    assert.match(describeDifference(undefined, { a: 'x', b: 'y' }), /^No difference/);
  });
});
