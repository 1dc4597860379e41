import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { closePool } from '../../db/pool';
import { isFencingError } from '../model/core/errors';
import { explorableAt, parseExploreAddress } from '../model/explore/explore-inputs';
import { type ExploreLab, exploreLabOf } from '../model/explore/explore-labs';
import { EXPLORE_QUEUE_MAX, exploreView } from './explore-page';

after(closePool);

test('requests at once share one exploration, and past the queue the explorer says so at once (429), then takes more', {
  timeout: 120_000,
}, async () => {
  const lab = exploreLabOf('no-fencing') as ExploreLab;
  const parsed = parseExploreAddress({});
  assert.ok(parsed.ok);
  const asked = EXPLORE_QUEUE_MAX + 4;
  const settled = await Promise.allSettled(Array.from({ length: asked }, () => exploreView(lab, parsed.address)));
  const refused = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  assert.equal(refused.length, asked - EXPLORE_QUEUE_MAX, 'only what the queue cannot hold is refused');
  for (const reason of refused) {
    assert.ok(isFencingError(reason, 'rate_limited'), String(reason));
    assert.match((reason as Error).message, /explorations waiting: try again in a few seconds/);
  }
  const answered = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  assert.ok(answered.every((view) => view.verdict === answered[0]?.verdict));
  // The queue drained: the explorer answers again.
  assert.equal((await exploreView(lab, parsed.address)).verdict, answered[0]?.verdict);
});

test('the failover lab on the page: asynchronous breaks, its shortest way walked to the loss; synchronous holds', {
  timeout: 120_000,
}, async () => {
  const parsed = parseExploreAddress({ holders: '2', writes: '2' });
  assert.ok(parsed.ok);
  const asynchronous = explorableAt('failover', parsed.address) as ExploreLab;
  const verdict = await exploreView(asynchronous, parsed.address);
  assert.equal(verdict.holds, false);
  assert.match(verdict.verdict, /^Failover \(asynchronous replication\): breaks in .* the shortest has 3 steps\.$/);
  assert.equal(
    verdict.shortestPath?.length,
    3,
    'the pair’s steps are found in the path (the story starts with the pair)',
  );
  const walked = await exploreView(asynchronous, { ...parsed.address, path: verdict.shortestPath ?? [] });
  assert.match(walked.violation ?? '', /^acknowledged write lost: A's write "A1" \(token 1\)/);
  assert.deepEqual(walked.pair, { serving: 'the promoted standby' });
  assert.deepEqual(walked.row, { value: 'initial', token: 0 });
  const halfway = await exploreView(asynchronous, {
    ...parsed.address,
    path: (verdict.shortestPath ?? []).slice(0, 2),
  });
  assert.deepEqual(halfway.pair, { serving: 'the primary', standby: { value: 'initial', token: 0 } });
  assert.deepEqual(
    halfway.next.map((n) => n.words),
    [
      "A's lease runs out",
      "A's write with token 1 reaches the row",
      'The standby catches up',
      'The primary dies; the standby, 1 grant and 1 write behind, is promoted',
    ],
  );
  const synchronous = explorableAt('failover', { ...parsed.address, sync: true }) as ExploreLab;
  const holds = await exploreView(synchronous, { ...parsed.address, sync: true });
  assert.equal(holds.holds, true, holds.verdict);
  assert.match(holds.verdict, /^Failover \(synchronous replication\): 142 states, 240 interleavings/);
});
