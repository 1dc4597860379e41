import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WireEvent } from './wire';
import { fromWirePage, toWirePage } from './wire-page';

const events: WireEvent[] = [
  { id: 7, lab: 'fenced', actor: 'A', kind: 'lease_acquired', token: 3, at: 1_000_000, detail: {} },
  {
    id: 9,
    lab: 'fenced',
    actor: 'B',
    kind: 'write_rejected',
    resource: 'rows',
    rowId: 1,
    token: 2,
    storedToken: 0,
    outcome: 'rejected',
    at: 1_000_250,
    detail: { value: 'x' },
  },
  // A clock that stepped back: a negative step.
  { id: 40, lab: 'fenced', actor: 'A', kind: 'write_sent', at: 999_990, detail: { value: null } },
];

test('a page carries ids and times as steps, and gives back the same events with absent fields absent', () => {
  const page = toWirePage('fenced', events);
  assert.deepEqual(
    page.rows.map((row) => [row[0], row[1]]),
    [
      [7, 1_000_000],
      [2, 250],
      [31, -260],
    ],
  );
  const back = fromWirePage(JSON.parse(JSON.stringify(page)));
  assert.deepEqual(back, events);
  assert.ok(!('outcome' in (back[0] as WireEvent)), 'an absent field is left out, not undefined');
  assert.deepEqual(fromWirePage({ lab: 'fenced', rows: [] }), []);
});
