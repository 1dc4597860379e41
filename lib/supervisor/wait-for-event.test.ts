import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import { appendEvent } from '../../db/events';
import { closePool, getPool } from '../../db/pool';
import type { LabEvent } from '../model/core/events';
import { WaitStopped, waitForLabEvent } from './wait-for-event';

/*
 * The one wait of every story (the scenarios' and the timed pause's): the first matching event in id
 * order, each poll's events read once and handed whole to the match, a stop as WaitStopped, a step
 * that never comes as a timeout that names it.
 */

after(closePool);

test('finds the first matching event, giving the match each poll’s events as read, once', async () => {
  const lab = { id: `wait-${randomUUID().slice(0, 8)}` };
  for (const actor of ['A', 'B', 'B']) await appendEvent(getPool(), { lab: lab.id, actor, kind: 'write_sent' });
  const polls = new Set<readonly LabEvent[]>();
  let calls = 0;
  const found = await waitForLabEvent(lab, 'B', (event, events) => {
    polls.add(events);
    calls++;
    return event.actor === 'B' && events.some((e) => e.actor === 'A' && e.id < event.id);
  });
  assert.equal(found.actor, 'B');
  assert.equal(polls.size, 1, 'one read of the events, shared by every call of the match');
  assert.equal(calls, 2, 'the match stops at the first event that matches');
});

test('a stop ends the wait at once, and a step that never comes times out naming it', async () => {
  const lab = { id: `wait-${randomUUID().slice(0, 8)}` };
  const stop = new AbortController();
  stop.abort();
  await assert.rejects(
    waitForLabEvent(lab, 'nothing', () => false, { signal: stop.signal }),
    WaitStopped,
  );
  await assert.rejects(
    waitForLabEvent(lab, 'A wakes', () => false, { timeoutMs: 60 }),
    /timed out waiting for: A wakes/,
  );
});
