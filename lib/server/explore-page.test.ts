import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { closePool } from '../../db/pool';
import { isFencingError } from '../model/core/errors';
import { parseExploreAddress } from '../model/explore/explore-inputs';
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
