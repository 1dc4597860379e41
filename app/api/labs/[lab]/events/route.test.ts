import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { appendEvent } from '@/db/events';
import { closePool, getPool } from '@/db/pool';
import { sharedLab } from '@/lib/model/lab/lab-instance';
import { resetLabData } from '@/lib/supervisor/lab-reset';
import { endListenSessions } from '@/lib/testing/end-listen-sessions';
import { openLabFeed, type SseEvent } from '@/lib/testing/sse-client';
import { waitFor } from '@/lib/testing/wait';
import { GET } from './route';

/*
 * The live feed as a browser sees it: history first, then live events as they commit, a reconnect
 * with Last-Event-ID that loses and duplicates nothing, resets, and a closed stream when the LISTEN
 * connection dies (so the browser reconnects).
 */

const LAB = 'per-process-counter';
type Message = SseEvent;

/** The feed as the shared test client reads it, taken message by message. */
function open(lab: string, lastEventId?: number) {
  const feed = openLabFeed(lab, lastEventId);
  const taken = new Set<Message>();
  const left = (event: string) => feed.received.filter((m) => m.event === event && !taken.has(m));
  return {
    response: feed.response,
    /** Waits until `count` messages of kind `event` arrived; returns them (and counts them as taken). */
    async take(event: string, count: number, timeoutMs = 5_000): Promise<Message[]> {
      const deadline = Date.now() + timeoutMs;
      while (left(event).length < count) {
        if (Date.now() > deadline) throw new Error(`only ${left(event).length} of ${count} "${event}"`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const batch = left(event).slice(0, count);
      for (const m of batch) taken.add(m);
      return batch;
    },
    pending: left,
    ended: feed.ended,
    close: feed.close,
  };
}

const write = (value: string) =>
  appendEvent(getPool(), { lab: LAB, actor: 'T', kind: 'write_sent', detail: { value } });

before(async () => {
  await resetLabData(sharedLab(LAB));
});
after(async () => {
  await closePool();
});

test('history, then live events, then a reconnect with Last-Event-ID: nothing lost, nothing doubled', async () => {
  for (const value of ['h1', 'h2', 'h3']) await write(value);
  const first = open(LAB);
  const [hello] = await first.take('hello', 1);
  const history = await first.take('lab-event', 3);
  assert.deepEqual(
    history.map((m) => m.data.detail),
    [{ value: 'h1' }, { value: 'h2' }, { value: 'h3' }],
  );
  assert.equal(hello?.data.firstId, history[0]?.id);
  assert.ok(history.every((m, i) => i === 0 || (m.id as number) > (history[i - 1]?.id as number)));
  await first.take('snapshot', 1);

  await write('live');
  const [live] = await first.take('lab-event', 1);
  assert.deepEqual(live?.data.detail, { value: 'live' });
  await first.close();

  for (const value of ['while-away-1', 'while-away-2']) await write(value);
  const second = open(LAB, live?.id);
  const resumed = await second.take('lab-event', 2);
  assert.deepEqual(
    resumed.map((m) => m.data.detail),
    [{ value: 'while-away-1' }, { value: 'while-away-2' }],
  );
  // A later event proves the stream went on past them: the feed sends in order, so a copy of either
  // would come before it.
  await write('after-reconnect');
  const [next] = await second.take('lab-event', 1);
  assert.deepEqual(next?.data.detail, { value: 'after-reconnect' }, 'no event sent twice');
  assert.deepEqual(second.pending('lab-event'), [], 'no event sent twice');
  second.close();
});

test('a reset reaches open streams, and the next hello tells a client which old events to drop', async () => {
  const stream = open(LAB);
  await stream.take('hello', 1);
  await resetLabData(sharedLab(LAB));
  await stream.take('reset', 1);
  stream.close();
  const after = open(LAB);
  const [hello] = await after.take('hello', 1);
  assert.equal(hello?.data.firstId, null, 'nothing left: a client clears its log');
  after.close();
});

test('when the LISTEN connection dies, the stream closes so that the browser reconnects', async () => {
  const stream = open(LAB);
  await stream.take('hello', 1);
  await endListenSessions();
  await waitFor(() => stream.ended(), 'the stream to close');
});

test('an unknown lab is a 404 and a malformed Last-Event-ID a 400', async () => {
  assert.equal((await open('prod').response).status, 404);
  const missing = await GET(new Request('http://lab.test/api/labs/prod/events'), {
    params: Promise.resolve({ lab: 'prod' }),
  });
  assert.deepEqual(await missing.json(), { error: { code: 'not_found', message: 'no lab "prod"' } });
  const bad = new Request(`http://lab.test/api/labs/${LAB}/events`, { headers: { 'last-event-id': 'abc' } });
  const refused = await GET(bad, { params: Promise.resolve({ lab: LAB }) });
  assert.equal(refused.status, 400);
  assert.deepEqual(await refused.json(), {
    error: { code: 'invalid_input', message: 'Last-Event-ID must be a whole number' },
  });
});
