import assert from 'node:assert/strict';
import { test } from 'node:test';
import { endOpenStreams, eventStream } from './event-stream';

/*
 * A server told to stop ends its open event streams (a live feed never finishes by itself, and Next's
 * graceful close waits for every request), and each stream's socket goes with it.
 */

async function readAll(response: Response): Promise<string> {
  return new Response(response.body).text();
}

test('endOpenStreams ends every open stream and runs its cleanup; a stream ended before is left alone', async () => {
  const cleanedUp: string[] = [];
  const open = (name: string) =>
    eventStream(new AbortController().signal, async (send) => {
      send({ event: 'hello', data: { name } });
      return () => cleanedUp.push(name);
    });
  const first = open('first');
  const second = open('second');
  const aborted = new AbortController();
  const ended = eventStream(aborted.signal, async () => () => cleanedUp.push('ended'));
  aborted.abort();
  assert.equal(await readAll(ended), 'retry: 1000\n\n');
  // Give the feeds' init a turn to hand back their cleanups.
  await new Promise((resolve) => setImmediate(resolve));

  endOpenStreams();
  assert.equal(await readAll(first), 'retry: 1000\n\nevent: hello\ndata: {"name":"first"}\n\n');
  assert.equal(await readAll(second), 'retry: 1000\n\nevent: hello\ndata: {"name":"second"}\n\n');
  assert.deepEqual(cleanedUp.toSorted(), ['ended', 'first', 'second']);
  endOpenStreams();
  assert.equal(cleanedUp.length, 3);
});

test('an event stream asks for its connection to close with it', () => {
  const response = eventStream(new AbortController().signal, async () => () => undefined);
  assert.equal(response.headers.get('connection'), 'close');
  assert.equal(response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  endOpenStreams();
});
