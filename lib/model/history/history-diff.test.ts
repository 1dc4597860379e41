import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handMade, recorded } from '../../testing/histories';
import type { WireEvent } from '../core/wire';
import { firstStepDifference, LAB_HOLDER, runSteps } from './history-diff';

/** The same run recorded again later: other ids, other times, other tokens from the sequence. */
const shifted = (events: readonly WireEvent[], by: { id: number; ms: number; token: number }) =>
  events.map((e) => ({
    ...e,
    id: e.id + by.id,
    at: e.at + by.ms,
    ...(e.token === undefined ? {} : { token: e.token + by.token }),
    ...(e.storedToken === undefined || e.storedToken === 0 ? {} : { storedToken: e.storedToken + by.token }),
  }));

describe('where two histories first differ, step by step', () => {
  test('ids, wall times and token numbers do not count: a run and its shifted copy do not differ', () => {
    const fenced = recorded('fenced');
    assert.equal(firstStepDifference(fenced, shifted(fenced, { id: 1_000, ms: 86_400_000, token: 500 })), undefined);
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
    assert.equal(firstStepDifference(once, thrice), undefined);
    const steps = runSteps(thrice).get('A') ?? [];
    assert.deepEqual(
      steps.map((s) => [s.key, s.repeats, s.ordinal]),
      [
        ['acquired #1', 1, 1],
        ['write #1 accepted', 3, 2],
      ],
    );
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
    const d = firstStepDifference(a, b);
    assert.equal(d?.holder, 'A');
    assert.equal(d?.step, 1);
    assert.equal(d?.a?.ordinal, 3);
  });

  test('a token granted twice in one run and once in the other is a difference of ranks', () => {
    const { ev } = handMade(Date.UTC(2026, 11, 1));
    const a = [ev(1, 0, 'A', 'lease_acquired', { token: 5 }), ev(2, 1, 'B', 'lease_acquired', { token: 6 })];
    const b = [ev(1, 0, 'A', 'lease_acquired', { token: 5 }), ev(2, 1, 'B', 'lease_acquired', { token: 5 })];
    const d = firstStepDifference(a, b);
    assert.equal(d?.holder, 'B');
    assert.equal(d?.a?.key, 'acquired #2');
    assert.equal(d?.b?.key, 'acquired #1');
  });

  test('the lab’s own steps (the failover cluster) are filed under the lab, not a holder', () => {
    const steps = runSteps(recorded('failover'));
    assert.ok((steps.get(LAB_HOLDER) ?? []).some((s) => s.key === 'primary_killed'));
  });
});
