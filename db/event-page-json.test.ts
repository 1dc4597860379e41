import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import type { Token } from '../lib/model/core/token';
import { toWire } from '../lib/model/core/wire';
import { fromWirePage, toWirePage, type WirePage } from '../lib/model/core/wire-page';
import { appendEvent, listEvents, readWireEventPage } from './events';
import { closePool, getPool } from './pool';

/*
 * The live feed sends a long history as pages that PostgreSQL writes as JSON (readWireEventPage, a
 * WirePage of rows), while a live event is reshaped in JavaScript (toWire over listEvents). A
 * browser must not be able to tell them apart once it has read the page (fromWirePage): every
 * field, present or absent, and awkward text.
 */

const eventsOf = (json: string) => fromWirePage(JSON.parse(json) as WirePage);

after(closePool);

test('a page written by PostgreSQL parses to exactly what toWire makes of the same events', async () => {
  const lab = `wire-${randomUUID().slice(0, 8)}`;
  const db = getPool();
  await appendEvent(db, { lab, actor: 'A', kind: 'worker_started' });
  // What a worker an app server started records: the server's run stays on the server.
  await appendEvent(db, {
    lab,
    actor: 'E',
    kind: 'worker_started',
    detail: { workerId: 'w1', server: { pid: 4242, bootId: 'b00t', startTicks: '123' } },
  });
  await appendEvent(db, { lab, actor: 'F', kind: 'lease_acquired', detail: { server: 'primary' } });
  await appendEvent(db, {
    lab,
    actor: 'Wörker "B"\n\\ 🦊',
    kind: 'write_accepted',
    resource: 'rows',
    rowId: 1,
    token: 9_007_199_254_740_991 as Token,
    storedToken: 0 as Token,
    outcome: 'accepted',
    detail: {
      value: 'line\nbreak\ttab "quoted" \u0001',
      nested: { none: null, list: [1, 2.5, -3e-7, true] },
      empty: {},
    },
  });
  await appendEvent(db, {
    lab,
    actor: 'C',
    kind: 'write_rejected',
    token: 42 as Token,
    storedToken: 43 as Token,
    detail: {},
  });
  await appendEvent(db, { lab, actor: 'D', kind: 'lease_expired', outcome: '', detail: { value: '' } });

  const events = await listEvents({ lab });
  const page = await readWireEventPage({ lab, afterId: 0, limit: 100 });
  assert.equal(page.count, 6);
  assert.equal(page.lastId, events.at(-1)?.id);
  assert.ok(!page.json.includes('\n'), 'one line, so that it fits one SSE data: line');
  assert.deepEqual(eventsOf(page.json), events.map(toWire));
  assert.doesNotMatch(page.json, /4242|b00t/, 'no process identity in the page');
  const started = events.map(toWire).find((e) => e.actor === 'E');
  assert.deepEqual(started?.detail, { workerId: 'w1' }, 'nor on the live feed');
  assert.equal(
    events.map(toWire).find((e) => e.actor === 'F')?.detail.server,
    'primary',
    "a failover step's server stays",
  );
  assert.deepEqual(JSON.parse(page.json), toWirePage(lab, events.map(toWire)), 'the rows toWirePage describes');
  // Each event's time in whole milliseconds, as node-postgres reads it (floored, not rounded).
  assert.ok(eventsOf(page.json).every((e) => Number.isInteger(e.at)));
});

test('pages: the first `limit` events after the given id, in id order; an empty page after the last', async () => {
  const lab = `wire-${randomUUID().slice(0, 8)}`;
  for (let n = 0; n < 5; n++) await appendEvent(getPool(), { lab, actor: 'A', kind: 'write_sent', detail: { n } });
  const ids = (await listEvents({ lab })).map((e) => e.id);

  const first = await readWireEventPage({ lab, afterId: 0, limit: 2 });
  assert.deepEqual(
    eventsOf(first.json).map((e) => e.id),
    ids.slice(0, 2),
  );
  assert.equal(first.lastId, ids[1]);
  const rest = await readWireEventPage({ lab, afterId: first.lastId ?? 0, limit: 10 });
  assert.deepEqual(
    eventsOf(rest.json).map((e) => e.id),
    ids.slice(2),
  );
  assert.deepEqual(await readWireEventPage({ lab, afterId: ids.at(-1) ?? 0, limit: 10 }), {
    json: `{"lab":"${lab}","rows":[]}`,
    count: 0,
    lastId: null,
  });
});
