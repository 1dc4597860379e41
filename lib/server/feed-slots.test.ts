import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { closeFeedPool, FEED_POOL_APPLICATION_NAME, FEED_POOL_MAX_CLIENTS } from '@/db/feed-pool';
import { acquireLease, releaseLease } from '@/db/leases';
import { closePool, getPool } from '@/db/pool';
import { sharedLab } from '@/lib/model/lab/lab-instance';
import { resetLabData } from '@/lib/supervisor/lab-reset';
import { endListenSessions } from '@/lib/testing/end-listen-sessions';
import { openLabFeed } from '@/lib/testing/sse-client';
import { waitFor } from '@/lib/testing/wait';
import { overrideRoomSettings } from '../config/room-settings';
import { getFeedSlots } from './feed-slots';

/*
 * Feeds are capped per client address and in total, and refused with an answer a browser retries
 * later; and however many feeds load histories at once, they use a few connections of their own,
 * so that a trainer's command never waits behind them.
 */

const LAB = 'read-check-write';
// The trainer's commands below take leases in a lab of their own, so that the feeds' history stays as written.
const COMMANDS_LAB = 'feed-slots-commands';
const PER_ADDRESS = 3;
const HISTORY_EVENTS = 2_000;
// Without the preload of `npm start`, the client address is the last X-Forwarded-For hop.
const from = (address: string) => ({ 'x-forwarded-for': address });

before(async () => {
  overrideRoomSettings({ maxFeedsPerAddress: PER_ADDRESS });
  await resetLabData(sharedLab(LAB));
});
after(async () => {
  await resetLabData(sharedLab(LAB));
  await endListenSessions();
  await closeFeedPool();
  await closePool();
});

const caughtUp = (feed: ReturnType<typeof openLabFeed>) => feed.received.some((m) => m.event === 'caught-up');

test('the feed past the per-address cap is told to come back later; other addresses, and a freed slot, are served', async () => {
  const mine = Array.from({ length: PER_ADDRESS }, () => openLabFeed(LAB, undefined, from('10.0.0.7')));
  await waitFor(() => mine.every(caughtUp), 'the first feeds caught up');

  const refused = openLabFeed(LAB, undefined, from('10.0.0.7'));
  const response = await refused.response;
  assert.equal(response.status, 200, 'an EventSource retries only a 200 event stream');
  await waitFor(() => refused.ended(), 'the refused stream ends');
  assert.deepEqual(
    refused.received.map((m) => m.event),
    ['busy'],
  );
  assert.match(String(refused.received[0]?.data.message), /too many live feeds are open from this address/);

  const other = openLabFeed(LAB, undefined, from('10.0.0.8'));
  await waitFor(() => caughtUp(other), 'another address is served');

  await mine[0]?.close();
  await waitFor(() => getFeedSlots().count('10.0.0.7') === PER_ADDRESS - 1, 'the slot freed');
  const again = openLabFeed(LAB, undefined, from('10.0.0.7'));
  await waitFor(() => caughtUp(again), 'a freed slot is taken again');
  await Promise.all([...mine.slice(1), other, again].map((feed) => feed.close()));
  await waitFor(() => getFeedSlots().count() === 0, 'every slot released');
});

test("many feeds loading long histories at once use the feeds' few connections; the trainer's commands still run", async () => {
  await getPool().query(
    `INSERT INTO events (lab, actor, kind, detail)
     SELECT $1, 'T', 'write_sent', jsonb_build_object('value', 'v' || n) FROM generate_series(1, $2) n`,
    [LAB, HISTORY_EVENTS],
  );
  const feeds = Array.from({ length: 40 }, (_, i) => openLabFeed(LAB, undefined, from(`10.0.1.${i}`)));
  let commands = 0;
  let feedConnections = 0;
  while (!feeds.every(caughtUp)) {
    // A trainer's command on the actions' pool: a lease taken and given back.
    const resource = `feed-slots-${commands}`;
    const result = await acquireLease({ lab: COMMANDS_LAB, resource, holder: 'trainer', ttlMs: 1_000 });
    assert.equal(result.outcome, 'granted');
    if (result.outcome === 'granted')
      await releaseLease({ lab: COMMANDS_LAB, resource, holder: 'trainer', token: result.lease.token });
    commands++;
    const { rows } = await getPool().query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
      [FEED_POOL_APPLICATION_NAME],
    );
    feedConnections = Math.max(feedConnections, rows[0]?.n ?? 0);
  }
  assert.ok(commands >= 1, 'the commands ran while the feeds loaded');
  assert.ok(feedConnections <= FEED_POOL_MAX_CLIENTS, `${feedConnections} feed connections at most`);
  for (const feed of feeds) assert.equal(feed.eventIds().length, HISTORY_EVENTS, 'every history arrived whole');
  console.log(`${commands} commands ran while 40 feeds loaded ${HISTORY_EVENTS} events each`);
  await Promise.all(feeds.map((feed) => feed.close()));
});
