import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { appendEvent } from '@/db/events';
import { closePool, getPool } from '@/db/pool';
import { sharedLab } from '@/lib/model/lab/lab-instance';
import { resetLabData } from '@/lib/supervisor/lab-reset';
import { endListenSessions } from '@/lib/testing/end-listen-sessions';
import { openLabFeed } from '@/lib/testing/sse-client';
import { waitFor } from '@/lib/testing/wait';

/*
 * A history of several pages (each one `lab-events` message, the next read while the client reads
 * the one before), with events committing while it is sent: the viewer ends up holding every event
 * the database holds, once each, in order; a reconnect from the middle of the history resumes there.
 */

const LAB = 'token-as-text';
const HISTORY = 3_000;

const idsInDatabase = async () =>
  (await getPool().query<{ id: string }>('SELECT id FROM events WHERE lab = $1 ORDER BY id', [LAB])).rows.map((r) =>
    Number(r.id),
  );

before(async () => {
  await resetLabData(sharedLab(LAB));
  await getPool().query(
    `INSERT INTO events (lab, actor, kind, detail)
     SELECT $1, 'T', 'write_sent', jsonb_build_object('value', 'h' || n) FROM generate_series(1, $2) n`,
    [LAB, HISTORY],
  );
});
after(async () => {
  await resetLabData(sharedLab(LAB));
  // The server's one LISTEN connection lives as long as the process: end it so that the test exits.
  await endListenSessions();
  await closePool();
});

test('a history of several pages while events commit: every event once, in order', async () => {
  const viewer = openLabFeed(LAB);
  let written = 0;
  // Live writes while the history is sent, and a few after it.
  while (!viewer.received.some((m) => m.event === 'caught-up') || written < 20) {
    await appendEvent(getPool(), { lab: LAB, actor: 'T', kind: 'write_sent', detail: { value: `live-${written}` } });
    written++;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  try {
    const inDatabase = await idsInDatabase();
    await waitFor(() => viewer.eventIds().at(-1) === inDatabase.at(-1), 'the newest event');
    assert.deepEqual(viewer.eventIds(), inDatabase, 'every event once, in order');
  } finally {
    await viewer.close();
  }

  // A reconnect from the middle of the history: the rest, nothing before it.
  const inDatabase = await idsInDatabase();
  const middle = inDatabase[1_234] as number;
  const resumed = openLabFeed(LAB, middle);
  try {
    await waitFor(() => resumed.received.some((m) => m.event === 'caught-up'), 'caught-up');
    assert.deepEqual(resumed.eventIds(), inDatabase.slice(1_235));
  } finally {
    await resumed.close();
  }
});
