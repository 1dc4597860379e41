import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { toWire } from '../lib/model/core/wire';
import { eventsUntil } from '../lib/model/history/replay';
import { appendEvent, listEvents, listEventsUntilMoment } from './events';
import { closePool, getPool } from './pool';

/*
 * A what-if fork reads a lab's events up to its moment only (listEventsUntilMoment): exactly the
 * events the replay counts as happened by then (eventsUntil), at every millisecond of a short history,
 * and none after it.
 */

after(closePool);

test('the events up to a moment are exactly those the replay counts as happened by then', async () => {
  const lab = `until-${randomUUID().slice(0, 8)}`;
  for (const actor of ['A', 'B', 'C', 'D']) {
    await appendEvent(getPool(), { lab, actor, kind: 'write_sent' });
    await sleep(7);
  }
  const all = (await listEvents({ lab })).map(toWire);
  const first = all[0]?.at ?? 0;
  const last = all.at(-1)?.at ?? 0;
  assert.ok(last - first >= 20, 'the events are spread over some milliseconds');
  for (let ms = 0; ms <= last - first + 2; ms++) {
    const read = (await listEventsUntilMoment({ lab, msFromFirst: ms })).map(toWire);
    assert.deepEqual(read, eventsUntil(all, first + ms), `at ${ms} ms from the first event`);
  }
  assert.deepEqual(
    (await listEventsUntilMoment({ lab, msFromFirst: 0 })).map((e) => e.actor),
    ['A'],
    'at the first event, only it',
  );
  assert.deepEqual(await listEventsUntilMoment({ lab: `${lab}-none`, msFromFirst: 1_000 }), []);
});
