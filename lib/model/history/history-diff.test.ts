import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handMade, recorded } from '../../testing/histories';
import type { WireEvent } from '../core/wire';
import { walkthroughFor } from '../walkthrough/walkthrough';
import { describeDifference, firstDifference, LAB_HOLDER, runSteps } from './history-diff';
import { storyPlaceOf } from './history-diff-story';

/** The same run recorded again later: other ids, other times, other tokens from the sequence. */
const shifted = (events: readonly WireEvent[], by: { id: number; ms: number; token: number }) =>
  events.map((e) => ({
    ...e,
    id: e.id + by.id,
    at: e.at + by.ms,
    ...(e.token === undefined ? {} : { token: e.token + by.token }),
    ...(e.storedToken === undefined || e.storedToken === 0 ? {} : { storedToken: e.storedToken + by.token }),
  }));

describe('where two histories first differ', () => {
  test('the fenced and the unfenced pause part at A’s late write: rejected in one, accepted in the other', () => {
    const fenced = recorded('fenced');
    const unfenced = recorded('no-fencing');
    const d = firstDifference(fenced, unfenced);
    assert.ok(d);
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
      /^First difference, the 7th thing A did: in Fenced, A's write .* rejected .*; in No fencing, A's write .* accepted\.$/,
    );
  });

  test("each side names the walkthrough's step it was at, as the walkthrough numbers and titles it", () => {
    const fenced = recorded('fenced');
    const unfenced = recorded('no-fencing');
    const d = firstDifference(fenced, unfenced);
    assert.ok(d);
    const places = { a: storyPlaceOf('fenced', fenced, d.a), b: storyPlaceOf('no-fencing', unfenced, d.b) };
    const steps = walkthroughFor('fenced');
    const late = steps.findIndex((step) => step.id === steps.at(-1)?.id);
    assert.equal(places.a, `at the walkthrough's step ${late + 1} of ${steps.length}, “${steps[late]?.title}”`);
    assert.match(
      describeDifference(d, { a: 'Fenced', b: 'No fencing' }, places),
      new RegExp(`^First difference, the 7th thing A did: in Fenced \\(at the walkthrough's step ${late + 1} of 7, `),
    );
    // A's expiry completes a step; the moment after the reset, a write completes none.
    const expiry = runSteps(fenced)
      .get('A')
      ?.find((s) => s.key.startsWith('expired'));
    assert.match(String(storyPlaceOf('fenced', fenced, expiry)), /^at the walkthrough's step 4 of 7, /);
    assert.equal(storyPlaceOf('your-guard', fenced, d.a), undefined, 'a kind without the walkthrough says nothing');
  });

  test('ids, wall times and token numbers do not count: a run and its shifted copy do not differ', () => {
    const fenced = recorded('fenced');
    assert.equal(firstDifference(fenced, shifted(fenced, { id: 1_000, ms: 86_400_000, token: 500 })), undefined);
    assert.match(describeDifference(undefined, { a: 'x', b: 'y' }), /^No difference/);
  });

  test('renewals, sent writes and repeats of one step do not count; the repeats are counted for the words', () => {
    const { ev } = handMade(Date.UTC(2026, 11, 1));
    const once = [
      ev(1, 0, 'A', 'lease_acquired', { token: 7 }),
      ev(2, 0.1, 'A', 'write_sent', { token: 7 }),
      ev(3, 0.2, 'A', 'write_accepted', { token: 7, outcome: 'accepted' }),
    ];
    const thrice = [
      ev(11, 0, 'A', 'lease_acquired', { token: 9 }),
      ev(12, 0.1, 'A', 'write_accepted', { token: 9, outcome: 'accepted' }),
      ev(13, 0.2, 'A', 'lease_renewed', { token: 9 }),
      ev(14, 0.3, 'A', 'write_accepted', { token: 9, outcome: 'accepted' }),
      ev(15, 0.4, 'A', 'write_accepted', { token: 9, outcome: 'accepted' }),
    ];
    assert.equal(firstDifference(once, thrice), undefined);
    const steps = runSteps(thrice).get('A') ?? [];
    assert.deepEqual(
      steps.map((s) => [s.key, s.repeats, s.ordinal]),
      [
        ['acquired #1', 1, 1],
        ['write #1 accepted', 3, 2],
      ],
    );
  });

  test('a run that stops short differs where it stops, and says it has no such step', () => {
    const fenced = recorded('fenced');
    const cut = fenced.slice(0, 8);
    const d = firstDifference(fenced, cut);
    assert.ok(d);
    assert.equal(d.b, undefined);
    assert.ok(d.a);
    assert.match(describeDifference(d, { a: 'whole', b: 'cut' }), /cut has no such step/);
  });

  test('of two holders that part, the one that parts first in its run is named', () => {
    const { ev } = handMade(Date.UTC(2026, 11, 1));
    const a = [
      ev(1, 0, 'A', 'lease_acquired', { token: 1 }),
      ev(2, 1, 'B', 'worker_started'),
      ev(3, 2, 'A', 'pause_started'),
      ev(4, 3, 'B', 'worker_crashed'),
    ];
    const b = [
      ev(1, 0, 'A', 'lease_acquired', { token: 1 }),
      ev(2, 1, 'B', 'worker_started'),
      ev(3, 2, 'A', 'lease_released', { token: 1 }),
      ev(4, 3, 'B', 'worker_stopped'),
    ];
    const d = firstDifference(a, b);
    assert.equal(d?.holder, 'A');
    assert.equal(d?.step, 1);
    assert.equal(d?.a?.ordinal, 3);
  });

  test('a token granted twice in one run and once in the other is a difference of ranks', () => {
    const { ev } = handMade(Date.UTC(2026, 11, 1));
    const a = [ev(1, 0, 'A', 'lease_acquired', { token: 5 }), ev(2, 1, 'B', 'lease_acquired', { token: 6 })];
    const b = [ev(1, 0, 'A', 'lease_acquired', { token: 5 }), ev(2, 1, 'B', 'lease_acquired', { token: 5 })];
    const d = firstDifference(a, b);
    assert.equal(d?.holder, 'B');
    assert.equal(d?.a?.key, 'acquired #2');
    assert.equal(d?.b?.key, 'acquired #1');
  });

  test('the lab’s own steps (the failover cluster) are filed under the lab, not a holder', () => {
    const steps = runSteps(recorded('failover'));
    assert.ok((steps.get(LAB_HOLDER) ?? []).some((s) => s.key === 'primary_killed'));
  });
});
