import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { getEventFeed } from '@/db/event-feed';
import { appendEvent, listEvents } from '@/db/events';
import { closePool, getPool, newClient } from '@/db/pool';
import { COMMANDS_CHANNEL } from '@/db/remote-workers';
import { sharedLab } from '@/lib/model/lab/lab-instance';
import { resetLabData } from '@/lib/supervisor/lab-reset';
import { getSupervisor } from '@/lib/supervisor/supervisor';
import { endListenSessions } from '@/lib/testing/end-listen-sessions';
import { openLabFeed } from '@/lib/testing/sse-client';
import { waitFor } from '@/lib/testing/wait';
import { waitForEvent } from '@/lib/testing/wait-for-event';
import { testWorkerLineUrl } from '@/lib/testing/worker-line';

/*
 * Anyone holding the worker line may run the SQL command NOTIFY on any channel, with any payload.
 * A payload that is not one the database sends is dropped: the server's live feeds, the class
 * wall's notes and every worker's command listener go on as if it had never come. On main before
 * this test, 'null' threw inside pg's notification callback: the server's LISTEN connection was
 * wedged for good (no feed heard of a new event), and every worker in every lab stopped.
 */

const FEED_LAB = 'read-check-write';
const WORKER_LAB = sharedLab('no-fencing');
const JUNK = [
  'null',
  '[]',
  '"x"',
  '42',
  'true',
  '{}',
  'not json',
  '{"id":"7","lab":"read-check-write"}',
  '{"lab":null,"reset":true}',
  '{"id":1e400,"lab":"read-check-write"}',
  '{"lab":"no-fencing","worker":{"toString":1}}',
  JSON.stringify({ id: 1, lab: 'x'.repeat(7_900) }),
  'x'.repeat(7_990),
];

let worker: pg.Client;
const uncaught: unknown[] = [];
const onUncaught = (error: unknown) => uncaught.push(error);

before(async () => {
  process.on('uncaughtException', onUncaught);
  worker = new pg.Client({ connectionString: await testWorkerLineUrl() });
  await worker.connect();
  await resetLabData(sharedLab(FEED_LAB));
});
after(async () => {
  process.off('uncaughtException', onUncaught);
  await getSupervisor().shutdown();
  await worker.end();
  await endListenSessions();
  await closePool();
});

/** As a trainee holding the worker line would: the NOTIFY command, which no grant can take away. */
async function notifyJunk(channel: string): Promise<void> {
  for (const payload of JUNK) await worker.query(`NOTIFY ${channel}, ${worker.escapeLiteral(payload)}`);
}

/**
 * Once a worker's command listener (a thread of its own, which takes a while to load) is connected:
 * its session has taken commands or beaten, which it does only after LISTEN.
 */
async function listenerListening(): Promise<void> {
  const owner = newClient();
  await owner.connect();
  try {
    await waitFor(
      async () => {
        const { rows } = await owner.query(
          "SELECT 1 FROM pg_stat_activity WHERE query LIKE 'SELECT worker_beat(%' OR query LIKE 'SELECT * FROM worker_take_commands(%'",
        );
        return rows.length > 0;
      },
      "the worker's command listener",
      { timeoutMs: 20_000 },
    );
  } finally {
    await owner.end();
  }
}

test('junk on fencing_events and fencing_guard_attempts: the live feed still delivers every event after it', async () => {
  const feed = openLabFeed(FEED_LAB);
  await waitFor(() => feed.received.some((m) => m.event === 'caught-up'), 'caught-up');
  const notes: unknown[] = [];
  const unsubscribe = await getEventFeed().subscribe({ onNote: (note) => notes.push(note), onClose: () => undefined });
  try {
    await notifyJunk('fencing_events');
    await notifyJunk('fencing_guard_attempts');
    const values = ['after-junk-1', 'after-junk-2'];
    for (const value of values) {
      await appendEvent(getPool(), { lab: FEED_LAB, actor: 'T', kind: 'write_sent', detail: { value } });
    }
    const ids = (await listEvents({ lab: FEED_LAB }))
      .filter((e) => values.includes(String(e.detail?.value)))
      .map((e) => e.id);
    assert.equal(ids.length, 2);
    await waitFor(() => ids.every((id) => feed.eventIds().includes(id)), 'both events on the feed', {
      timeoutMs: 5_000,
    });
    // A well-formed guard-attempt note still reaches the class wall's subscription, after all the junk.
    await worker.query(`NOTIFY fencing_guard_attempts, '{"id": 424242}'`);
    await waitFor(() => notes.some((n) => (n as { guardAttempt?: number }).guardAttempt === 424242), 'the wall note');
    assert.ok(
      notes.every((n) => typeof (n as { lab: unknown }).lab === 'string'),
      `no junk reached a subscriber: ${JSON.stringify(notes).slice(0, 300)}`,
    );
    assert.deepEqual(uncaught, [], 'nothing thrown out of the notification callback');
  } finally {
    unsubscribe();
    await feed.close();
  }
});

test('junk on the worker command channel: every worker keeps running and still obeys the trainer', async () => {
  const supervisor = getSupervisor();
  await supervisor.resetLab(WORKER_LAB);
  await supervisor.startWorker(WORKER_LAB, { name: 'A', leaseTtlMs: 2_000, renewEveryMs: 500, writeEveryMs: 300 });
  const firstWrite = await waitForEvent(
    WORKER_LAB.id,
    (e) => e.actor === 'A' && e.kind === 'write_accepted',
    'A writes',
  );
  await listenerListening();
  await notifyJunk(COMMANDS_CHANNEL);
  // The pause's own notification comes after the junk on A's listener connection (in commit order), and a
  // poll for commands returns only after the notifications before it: A obeying the pause, and its listener
  // waking it when the pause has run its length, prove the listener took the junk and went on. A listener
  // that threw took its worker down (it did within a second) and obeyed nothing more.
  await supervisor.pause(WORKER_LAB, 'A', { mode: 'for', seconds: 1 });
  const paused = await waitForEvent(
    WORKER_LAB.id,
    (e) => e.actor === 'A' && e.kind === 'pause_started' && e.id > firstWrite.id,
    'A obeys the pause',
    { timeoutMs: 5_000 },
  );
  const resumed = await waitForEvent(
    WORKER_LAB.id,
    (e) => e.actor === 'A' && e.kind === 'pause_ended' && e.id > paused.id,
    'A woken by its listener',
  );
  await waitForEvent(
    WORKER_LAB.id,
    (e) => e.actor === 'A' && e.kind === 'write_accepted' && e.id > resumed.id,
    'A writes again',
  );
  const ended = (await listEvents({ lab: WORKER_LAB.id })).filter(
    (e) => e.actor === 'A' && e.id > firstWrite.id && ['worker_stopped', 'worker_crashed'].includes(e.kind),
  );
  assert.deepEqual(ended, [], 'A did not stop (a listener that threw stopped every worker of every lab)');
  assert.deepEqual(uncaught, []);
});
