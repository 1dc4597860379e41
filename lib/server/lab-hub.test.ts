import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { getEventFeed } from '@/db/event-feed';
import { appendEvent } from '@/db/events';
import { closePool, getPool } from '@/db/pool';
import { sharedLab } from '@/lib/model/lab/lab-instance';
import { resetLabData } from '@/lib/supervisor/lab-reset';
import { endListenSessions } from '@/lib/testing/end-listen-sessions';
import { openLabFeed } from '@/lib/testing/sse-client';
import { waitFor } from '@/lib/testing/wait';
import type { SseMessage } from './event-stream';
import { getLabHub, MAX_VIEWER_BACKLOG_BYTES } from './lab-hub';

/*
 * Many viewers of one lab share one reader: they see the same events in the same order, a viewer
 * joining mid-run gets its history and then live events with nothing missing or doubled, and a lab
 * nobody watches any more costs nothing.
 */

const LAB = 'read-check-write';

const write = (value: string) =>
  appendEvent(getPool(), { lab: LAB, actor: 'T', kind: 'write_sent', detail: { value } });

async function idsInDatabase(): Promise<number[]> {
  const { rows } = await getPool().query<{ id: string }>('SELECT id FROM events WHERE lab = $1 ORDER BY id', [LAB]);
  return rows.map((row) => Number(row.id));
}

/** Writes from several connections at once until stopped, so that commits interleave. */
function keepWriting(prefix: string) {
  let going = true;
  const writers = [1, 2, 3].map(async (writer) => {
    for (let n = 0; going; n++) await write(`${prefix}-${writer}-${n}`);
  });
  return async () => {
    going = false;
    await Promise.all(writers);
  };
}

before(async () => {
  await resetLabData(sharedLab(LAB));
});
after(async () => {
  // The server's one LISTEN connection lives as long as the process: end it so that the test exits.
  await endListenSessions();
  await closePool();
});

test('two viewers receive the same events in the same order, as the database holds them', async () => {
  await resetLabData(sharedLab(LAB));
  const one = openLabFeed(LAB);
  const two = openLabFeed(LAB);
  await waitFor(() => [one, two].every((v) => v.received.some((m) => m.event === 'caught-up')), 'caught-up');
  const stop = keepWriting('both');
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await stop();
  const expected = await idsInDatabase();
  assert.ok(expected.length >= 10, `enough writes to interleave (${expected.length})`);
  await waitFor(() => one.eventIds().length >= expected.length && two.eventIds().length >= expected.length, 'all');
  assert.deepEqual(one.eventIds(), expected);
  assert.deepEqual(two.eventIds(), expected);
  assert.equal(getLabHub().stateOf(LAB).viewers, 2, 'both share one channel');
  // Each snapshot says how many watch: the room, as the trainer sees it.
  await waitFor(
    () => one.received.some((m) => m.event === 'snapshot' && m.data.viewers === 2),
    'a snapshot counting both viewers',
  );
  await one.close();
  await two.close();
});

test('a viewer joining mid-run gets the history, then live events, with no gap and no double', async () => {
  await resetLabData(sharedLab(LAB));
  const early = openLabFeed(LAB);
  const stop = keepWriting('mid');
  // Events committed before the late viewer joins, for its history: the early viewer has them live.
  await waitFor(() => early.eventIds().length >= 20, 'twenty events to the early viewer');
  // Joins while events commit: some land in its history, some reach it live, some both ways.
  const late = openLabFeed(LAB);
  await waitFor(() => late.received.some((m) => m.event === 'caught-up'), 'the late viewer caught up');
  const historyEnd = late.received.find((m) => m.event === 'caught-up')?.data.lastId as number;
  await waitFor(
    () => late.eventIds().filter((id) => id > historyEnd).length >= 20,
    'twenty events live to the late viewer after its history',
  );
  await stop();
  const expected = await idsInDatabase();
  await waitFor(() => late.eventIds().length >= expected.length, 'the late viewer has every event');
  assert.deepEqual(late.eventIds(), expected);
  const caughtUp = late.received.find((m) => m.event === 'caught-up');
  const lastHistoryId = caughtUp?.data.lastId as number;
  assert.ok(lastHistoryId > 0 && lastHistoryId < (expected.at(-1) as number), 'events came both as history and live');
  await waitFor(() => early.eventIds().length >= expected.length, 'the early viewer has every event');
  assert.deepEqual(early.eventIds(), expected);
  await early.close();
  await late.close();
});

test('a viewer that disconnects is removed, and a lab with no viewers stops its timers', async () => {
  const subscribedBefore = getEventFeed().subscriberCount;
  const one = openLabFeed(LAB);
  const two = openLabFeed(LAB);
  // A viewer counts from its join; the channel's timer starts once it listens (later, on a loaded machine).
  await waitFor(
    () => getLabHub().stateOf(LAB).viewers === 2 && getLabHub().stateOf(LAB).ticking,
    'two viewers, ticking',
  );
  await one.close();
  await waitFor(() => getLabHub().stateOf(LAB).viewers === 1, 'one viewer left');
  await write('still live');
  await waitFor(() => two.received.some((m) => (m.data.detail as { value?: string })?.value === 'still live'), 'live');
  await two.close();
  await waitFor(() => getLabHub().stateOf(LAB).viewers === 0, 'no viewer left');
  assert.deepEqual(getLabHub().stateOf(LAB), { viewers: 0, ticking: false });
  assert.equal(getEventFeed().subscriberCount, subscribedBefore, 'its LISTEN subscription is let go');
});

test('a viewer that stops reading is dropped (it reconnects with Last-Event-ID), the others carry on', async () => {
  const reading = openLabFeed(LAB);
  const got: SseMessage[] = [];
  let closed = false;
  let backlog = 0;
  const leave = await getLabHub().join(sharedLab(LAB), {
    deliver: (message) => {
      got.push(message);
      backlog += MAX_VIEWER_BACKLOG_BYTES; // as if its client had stopped reading long ago
    },
    close: () => {
      closed = true;
    },
    backlogBytes: () => backlog,
  });
  await waitFor(() => getLabHub().stateOf(LAB).viewers === 2, 'both joined');
  await write('one too many');
  await waitFor(() => closed, 'the stalled viewer was closed');
  assert.equal(getLabHub().stateOf(LAB).viewers, 1);
  await waitFor(() => reading.received.some((m) => m.event === 'lab-event'), 'the reading viewer got it');
  leave();
  await reading.close();
});
