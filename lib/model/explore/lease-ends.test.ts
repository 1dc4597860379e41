import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WireEvent } from '../core/wire';
import { buildTimeline } from '../timeline/timeline';
import { withLeaseEnds } from './lease-ends';

const T0 = Date.UTC(2026, 0, 1);
let id = 0;
const ev = (i: number, actor: string, kind: WireEvent['kind'], token?: number, detail = {}): WireEvent => ({
  id: ++id,
  lab: 'explore',
  at: T0 + i * 100,
  actor,
  kind,
  detail,
  ...(token === undefined ? {} : { token }),
});
const iso = (i: number) => new Date(T0 + i * 100).toISOString();

test("a lease runs until the step that ends it, and past the path's last step while none has", () => {
  const events = withLeaseEnds(
    [
      ev(0, 'A', 'lease_acquired', 1),
      ev(1, 'A', 'write_accepted', 1, { value: 'A1' }),
      ev(2, 'A', 'lease_expired', 1),
      ev(3, 'B', 'lease_acquired', 2),
      ev(4, 'B', 'write_accepted', 2, { value: 'B1' }),
    ],
    100,
  );
  assert.equal(events[0]?.detail.expiresAt, iso(2));
  assert.equal(events[2]?.detail.expiresAt, iso(2));
  assert.equal(events[3]?.detail.expiresAt, iso(5));
});

test('drawn, a holder believes past its lease only once a step ended it: never at the grant', () => {
  const [grant, write, expiry] = [
    ev(0, 'A', 'lease_acquired', 1),
    ev(1, 'A', 'write_accepted', 1, { value: 'A1' }),
    ev(2, 'A', 'lease_expired', 1),
  ];
  if (!grant || !write || !expiry) throw new Error('three events');
  // Before: with no expiresAt, A "believed past its lease" from the grant on, beside its accepted write.
  const before = buildTimeline([grant, write], T0 + 100);
  assert.equal(before.lanes[0]?.beliefs.length, 1, 'the defect this fixes: a band from the grant');
  const twoSteps = buildTimeline(withLeaseEnds([grant, write], 100), T0 + 100);
  assert.equal(twoSteps.lanes[0]?.beliefs.length, 0);
  const expired = buildTimeline(withLeaseEnds([grant, write, expiry], 100), T0 + 300);
  assert.deepEqual(
    expired.lanes[0]?.beliefs.map((b) => b.from),
    [T0 + 200],
  );
});

test("a promoted standby keeps its own lease; every other holder's ends at the promotion", () => {
  const events = withLeaseEnds(
    [
      ev(0, 'A', 'lease_acquired', 1),
      ev(1, 'B', 'lease_acquired', 2),
      ev(2, 'cluster', 'standby_promoted', undefined, { lease: { holder: 'B', token: '2' } }),
    ],
    100,
  );
  assert.equal(events[0]?.detail.expiresAt, iso(2));
  assert.equal(events[1]?.detail.expiresAt, iso(3));
  const none = withLeaseEnds(
    [ev(0, 'A', 'lease_acquired', 1), ev(1, 'cluster', 'standby_promoted', undefined, { lease: null })],
    100,
  );
  assert.equal(none[0]?.detail.expiresAt, iso(1));
});

test('a released lease ends at its release; a new grant to the same holder ends the one before', () => {
  const events = withLeaseEnds(
    [
      ev(0, 'A', 'lease_acquired', 1),
      ev(1, 'A', 'lease_released', 1),
      ev(2, 'B', 'lease_acquired', 2),
      ev(3, 'B', 'lease_acquired', 3),
    ],
    100,
  );
  assert.equal(events[0]?.detail.expiresAt, iso(1));
  assert.equal(events[2]?.detail.expiresAt, iso(3));
  assert.equal(events[3]?.detail.expiresAt, iso(4));
});
