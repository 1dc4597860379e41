import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { appendEvent, clearEvents } from '@/db/events';
import { getFeedPool } from '@/db/feed-pool';
import { closePool, getPool } from '@/db/pool';
import { sharedLab } from '@/lib/model/lab/lab-instance';
import { resetLabData } from '@/lib/supervisor/lab-reset';
import { endListenSessions } from '@/lib/testing/end-listen-sessions';
import { openLabFeed } from '@/lib/testing/sse-client';
import { waitFor } from '@/lib/testing/wait';

/*
 * A reset that falls among events a feed is delivering: a read of the hub's that began before the
 * reset returns an event committed after it, and a viewer joins before the hub has passed the reset
 * on. The reset's boundary (every event up to it deleted) keeps the later event for both viewers.
 */

const LAB = 'read-check-write';
const write = (value: string) =>
  appendEvent(getPool(), { lab: LAB, actor: 'T', kind: 'write_sent', detail: { value } });
async function idsInDatabase(): Promise<number[]> {
  const { rows } = await getPool().query<{ id: string }>('SELECT id FROM events WHERE lab = $1 ORDER BY id', [LAB]);
  return rows.map((row) => Number(row.id));
}
/** The slow read the test plays (a fault it injects), not a wait for anything. */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// A pool wait or a slow network before the hub's next "id > last read" query runs.
let delayNextRead = 0;
before(async () => {
  await resetLabData(sharedLab(LAB));
  // The hub reads on the feeds' own pool (db/feed-pool.ts).
  const pool = getFeedPool();
  const original = pool.query.bind(pool) as (...a: unknown[]) => unknown;
  (pool as unknown as { query: unknown }).query = async (...args: unknown[]) => {
    if (delayNextRead && typeof args[0] === 'string' && args[0].includes('id > $2')) {
      const ms = delayNextRead;
      delayNextRead = 0;
      await sleep(ms);
    }
    return original(...args);
  };
});
after(async () => {
  await endListenSessions();
  await closePool();
});

test('an event committed just after a reset survives the reset, for an open viewer and one joining then', async () => {
  const early = openLabFeed(LAB);
  await waitFor(() => early.received.some((m) => m.event === 'caught-up'), 'caught-up');
  await write('before');
  await waitFor(() => early.eventIds().length === 1, 'first event');

  delayNextRead = 400; // the hub's next read is slow to start
  await write('deleted by the reset'); // note -> pump -> listEvents (delayed)
  await waitFor(() => delayNextRead === 0, "the hub's delayed read to begin");
  await clearEvents(LAB); // reset note arrives while the read is in flight
  await write('after the reset'); // commits before the delayed read takes its snapshot
  const late = openLabFeed(LAB); // joins while the hub has not yet broadcast the reset
  await waitFor(() => late.received.some((m) => m.event === 'caught-up'), 'late caught-up');
  // The facts that end the story: the open viewer was told of the reset, and a later event reached both.
  // (The later event alone is not one: the delayed read may return it before the hub sends the reset.)
  await write('later');
  const marker = Math.max(...(await idsInDatabase()));
  await waitFor(
    () =>
      early.received.some((m) => m.event === 'reset') &&
      early.eventIds().includes(marker) &&
      late.eventIds().includes(marker),
    'the reset on the open feed, and the later event on both',
  );
  const expected = await idsInDatabase();
  const earlyIds = early.eventIds();
  const lateIds = late.eventIds();
  await early.close();
  await late.close();
  assert.deepEqual({ early: earlyIds, late: lateIds }, { early: expected, late: expected });
});
