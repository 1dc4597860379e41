import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { appendEvent } from '@/db/events';
import { closeFeedPool } from '@/db/feed-pool';
import { migrate } from '@/db/migrate';
import { closePool, getPool } from '@/db/pool';
import { crashPostmaster, startEmbeddedPostgres } from '@/lib/launcher/embedded-postgres';
import { sharedLab } from '@/lib/model/lab/lab-instance';
import { resetLabData } from '@/lib/supervisor/lab-reset';
import { openLabFeed } from '@/lib/testing/sse-client';
import { startTestCluster, type TestCluster } from '@/lib/testing/test-cluster';
import { waitFor } from '@/lib/testing/wait';
import { GET } from './route';

/*
 * The feed while its database is away, on a cluster of its own (this test kills it): every answer
 * is one a browser's EventSource retries by itself (a 200 event stream with `retry:` that ends),
 * the server says so in one log line, not one per attempt, and once the database is back a
 * reconnect resumes from the last id with nothing lost or doubled.
 */

const LAB = 'per-process-counter';
let cluster: TestCluster;

before(async () => {
  cluster = await startTestCluster('feed-outage');
  process.env.DATABASE_URL = cluster.url;
  await migrate(cluster.url);
  await resetLabData(sharedLab(LAB));
});
after(async () => {
  await closeFeedPool();
  await closePool();
  await cluster.dispose();
});

const write = (value: string) =>
  appendEvent(getPool(), { lab: LAB, actor: 'T', kind: 'write_sent', detail: { value } });

/** Console lines written while `fn` runs (the server's log, as an operator reads it). */
async function logDuring(fn: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const { error, log } = console;
  console.error = (...args: unknown[]) => lines.push(args.map(String).join(' '));
  console.log = (...args: unknown[]) => lines.push(args.map(String).join(' '));
  try {
    await fn();
  } finally {
    console.error = error;
    console.log = log;
  }
  return lines;
}

test('while the database is away the feed answers what a browser retries, logs it once, and resumes with nothing lost or doubled', async () => {
  for (const value of ['before-1', 'before-2']) await write(value);
  const first = openLabFeed(LAB);
  await waitFor(() => first.received.some((m) => m.event === 'caught-up'), 'the first feed caught up');
  const seen = first.eventIds();
  assert.equal(seen.length, 2);

  const answers: { status: number; type: string | null; body: string }[] = [];
  const downLog = await logDuring(async () => {
    await crashPostmaster(cluster);
    await waitFor(() => first.ended(), 'the open stream ended (its browser reconnects)');
    // A browser retrying every 300 ms for 3 s, as a room of them would, with the id it holds.
    for (let i = 0; i < 10; i++) {
      const request = new Request(`http://lab.test/api/labs/${LAB}/events`, {
        headers: { 'last-event-id': String(seen.at(-1)) },
      });
      const response = await GET(request, { params: Promise.resolve({ lab: LAB }) });
      answers.push({
        status: response.status,
        type: response.headers.get('content-type'),
        body: await response.text(),
      });
      await sleep(300);
    }
  });
  for (const answer of answers) {
    assert.equal(answer.status, 200, 'a browser gives up for good on anything but 200');
    assert.match(answer.type ?? '', /^text\/event-stream/);
    assert.match(answer.body, /^retry: \d+\n\n/, 'it says when to come back');
    assert.match(answer.body, /event: unavailable\ndata: .*database is not reachable/);
  }
  const feedLines = downLog.filter((line) => line.includes('[sse] the live feed'));
  assert.equal(feedLines.length, 1, `one line for the outage, not one per attempt:\n${downLog.join('\n')}`);
  assert.ok(downLog.length <= 3, `a quiet log while the database is away:\n${downLog.join('\n')}`);

  const restarted = await startEmbeddedPostgres({ dataDir: cluster.dataDir, preferredPort: cluster.port });
  assert.equal(restarted.port, cluster.port);
  await waitFor(
    async () =>
      await write('after-1')
        .then(() => true)
        .catch(() => false),
    'writes work again',
  );
  await write('after-2');

  const upLog = await logDuring(async () => {
    const second = openLabFeed(LAB, seen.at(-1));
    await waitFor(() => second.received.some((m) => m.event === 'caught-up'), 'the reconnect caught up');
    await write('live-after');
    await waitFor(() => second.eventIds().length === 3, 'the live event after the reconnect');
    const { rows } = await getPool().query<{ id: string }>('SELECT id FROM events WHERE lab = $1 ORDER BY id', [LAB]);
    assert.deepEqual(
      [...seen, ...second.eventIds()],
      rows.map((r) => Number(r.id)),
      'nothing lost, nothing doubled',
    );
    await second.close();
  });
  assert.ok(
    upLog.some((line) => /\[sse\] the live feed works again after/.test(line)),
    `one line when it is back:\n${upLog.join('\n')}`,
  );
});
