import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeTotals, stalePerMinute, tallyChaos } from './chaos-tally';

type E = { kind: string; actor: string; token?: number; detail?: Record<string, unknown> };

/** A lab's history from a list: ids in order, one lab, one row. */
const history = (events: E[]) => events.map((e, i) => ({ id: i + 1, lab: 'fenced', detail: {}, ...e }));

test('a stale attempt is a write of a superseded holder after the new holder wrote; rejected or not', () => {
  const events = history([
    { kind: 'lease_acquired', actor: 'A', token: 1 },
    { kind: 'write_accepted', actor: 'A', token: 1 },
    { kind: 'pause_started', actor: 'A', detail: { trigger: 'critical-window' } },
    { kind: 'lease_expired', actor: 'A', token: 1, detail: { revoked: 'a forced takeover' } },
    { kind: 'lease_acquired', actor: 'B', token: 2 },
    { kind: 'write_accepted', actor: 'A', token: 1 }, // superseded, but nothing newer is on the row yet
    { kind: 'write_accepted', actor: 'B', token: 2 },
    { kind: 'write_rejected', actor: 'A', token: 1 },
    { kind: 'write_accepted', actor: 'A', token: 1 },
    { kind: 'write_accepted', actor: 'B', token: 2 },
  ]);
  const tally = tallyChaos(events, 30_000);
  assert.equal(tally.staleAttempts, 2, 'the two writes of A after B wrote');
  assert.equal(tally.staleAccepted, 1);
  assert.equal(tally.accepted, 5);
  assert.equal(tally.rejected, 1);
  assert.equal(tally.grants, 2);
  assert.equal(tally.forcedTakeovers, 1);
  assert.deepEqual(tally.freezes, { criticalWindow: 1, anywhere: 0 });
  assert.equal(stalePerMinute(tally), 4);
});

test('the same token granted again later supersedes the earlier holder (a takeover that kept the token)', () => {
  const events = history([
    { kind: 'lease_acquired', actor: 'A', token: 5 },
    { kind: 'write_accepted', actor: 'A', token: 5 },
    { kind: 'lease_acquired', actor: 'B', token: 5 },
    { kind: 'write_accepted', actor: 'B', token: 5 },
    { kind: 'write_accepted', actor: 'A', token: 5 },
  ]);
  assert.equal(tallyChaos(events, 1_000).staleAccepted, 1);
});

test('a holder that takes the lease again writes fresh; a newer holder turned away is not stale', () => {
  const events = history([
    { kind: 'lease_acquired', actor: 'A', token: 9 },
    { kind: 'write_accepted', actor: 'A', token: 9 },
    { kind: 'lease_acquired', actor: 'B', token: 10 },
    { kind: 'write_rejected', actor: 'B', token: 10 }, // token as text: '10' < '9'
    { kind: 'lease_acquired', actor: 'A', token: 11 },
    { kind: 'write_accepted', actor: 'A', token: 11 },
    { kind: 'worker_crashed', actor: 'B' },
    { kind: 'pause_started', actor: 'A', detail: { trigger: 'now' } },
  ]);
  const tally = tallyChaos(events, 1_000);
  assert.equal(tally.staleAttempts, 0);
  assert.equal(tally.crashes, 1);
  assert.deepEqual(tally.freezes, { criticalWindow: 0, anywhere: 1 });
});

test('the totals in one line, stale attempts first', () => {
  const line = describeTotals({
    ...tallyChaos([], 60_000),
    staleAttempts: 120,
    heldConnections: 1,
    databaseCrashes: 2,
  });
  assert.match(line, /^120 stale write attempts \(120 a minute\), 0 accepted; /);
  assert.match(line, /1 held connection; 0 worker crashes; 2 database crashes; in 60\.0 s$/);
});
