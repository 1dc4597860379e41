import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WireEvent } from '@/lib/model/core/wire';
import { createLabStore } from './lab-store';

/*
 * What the browser's copy of a lab does with a feed that comes and goes: a hello from the same
 * database keeps the history held (minus what a reset deleted), one from another database drops
 * it all; and the words the page shows follow the connection.
 */

const summary = { id: 'fenced', kind: 'fenced', visibility: 'shared', closed: false } as const;
const event = (id: number): WireEvent => ({ id, lab: 'fenced', at: id, actor: 'A', kind: 'write_sent', detail: {} });

test('a hello from the same database keeps the history; one from another database drops it', () => {
  const store = createLabStore(summary, false);
  const { getState } = store;
  assert.equal(getState().receiveHello({ firstId: 1, database: 'db-1' }), 'same-database');
  getState().receiveEvents([event(1), event(2), event(3)]);
  assert.equal(getState().receiveHello({ firstId: 2, database: 'db-1' }), 'same-database');
  assert.deepEqual(
    getState().events.map((e) => e.id),
    [2, 3],
    'a reset while away deleted event 1',
  );
  assert.equal(getState().receiveHello({ firstId: 1, database: 'db-2' }), 'new-database');
  assert.deepEqual(getState().events, [], "another database's history is read from its start");
  getState().receiveEvents([event(1)]);
  assert.deepEqual(
    getState().events.map((e) => e.id),
    [1],
    'its ids are not taken for ones already held',
  );
});

test('the connection says why it is not live, and "again" once it is back', () => {
  const { getState } = createLabStore(summary, false);
  assert.equal(getState().connection, 'connecting');
  getState().setConnection('live');
  assert.equal(getState().reconnected, false);
  getState().setConnection('reconnecting', 'the database is not reachable; retrying');
  assert.equal(getState().connectionNote, 'the database is not reachable; retrying');
  getState().setConnection('live');
  assert.deepEqual(
    [getState().connection, getState().connectionNote, getState().reconnected],
    ['live', undefined, true],
  );
});

test('a recorded history opens fitted to its span, not crammed at the edge of the live window', () => {
  const at = (s: number) => 1_000_000 + s * 1000;
  const history = [0, 0.4, 1.6].map((s, i) => ({ ...event(i + 1), at: at(s) }));
  const { getState } = createLabStore({ ...summary, closed: true }, false, history);
  const { windowMs, viewEnd } = getState();
  assert.ok(viewEnd !== undefined, 'the view is placed, not following the end');
  assert.ok(windowMs <= 2_200, `a 1.6 s history in a window of ${windowMs} ms`);
  assert.ok(viewEnd - windowMs <= at(0) && viewEnd >= at(1.6), 'the whole history is in view');
  assert.ok(viewEnd - windowMs < at(0) - 100, 'with air on the left');
  // The last write's label is drawn right of it: a fifth of the window.
  assert.ok(viewEnd >= at(1.6) + windowMs / 5, `with room for a label on the right (${viewEnd - at(1.6)} ms)`);
  const live = createLabStore(summary, false).getState();
  assert.equal(live.viewEnd, undefined, 'a live lab follows its end');
});
