import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { findLab } from '../../db/labs';
import { closePool } from '../../db/pool';
import { describeRun } from '../model/sweep-cell';
import { sweepRuns } from '../model/sweep-grid';
import { getSupervisor } from '../supervisor/supervisor';
import { runSweep, runSweepRun } from './run-sweep';

/*
 * The sweep's cells agree with running the same parameters one by one: a 2 × 2 sweep, two runs at
 * a time, each in a private lab of its own, then each of its runs alone. The points are chosen away
 * from the edge (a pause of a fifth of the lease, and of twice the longest lease), where the
 * outcome does not hang on a few milliseconds of scheduling.
 */

after(async () => {
  await getSupervisor().shutdown();
  await closePool();
});

const grid = { pausesMs: [200, 3_200], ttlsMs: [1_000, 1_600], driftsPercent: [0] };

test("the sweep's cells agree with running the same parameters one by one", async () => {
  const progress: number[] = [];
  const swept = await runSweep({ grid, concurrency: 2 }, ({ done }) => progress.push(done));
  assert.deepEqual(progress, [1, 2, 3, 4, 5, 6, 7, 8], 'the progress counts every run once');
  assert.deepEqual(
    swept.map((r) => r.failure),
    swept.map(() => undefined),
  );
  const alone = [];
  for (const run of sweepRuns(grid)) alone.push(await runSweepRun(run));
  assert.deepEqual(
    alone.map((r) => describeRun(r)),
    swept.map((r) => describeRun(r)),
  );
  // The physics, so that agreeing cannot mean agreeing on nothing: a short pause writes in time,
  // a long one is a lost update without fencing and a rejected stale write with it.
  assert.deepEqual(
    swept.map((r) => [r.point.pauseMs, r.point.ttlMs, r.fencing, r.outcome]),
    [
      [200, 1000, 'unfenced', 'no-stale-write'],
      [200, 1000, 'fenced', 'no-stale-write'],
      [3200, 1000, 'unfenced', 'stale-accepted'],
      [3200, 1000, 'fenced', 'stale-rejected'],
      [200, 1600, 'unfenced', 'no-stale-write'],
      [200, 1600, 'fenced', 'no-stale-write'],
      [3200, 1600, 'unfenced', 'stale-accepted'],
      [3200, 1600, 'fenced', 'stale-rejected'],
    ],
  );
  const labs = new Set([...swept, ...alone].map((r) => r.lab));
  assert.equal(labs.size, 16, 'every run had a private lab of its own');
  for (const id of labs) {
    const lab = await findLab(id);
    assert.equal(lab?.visibility, 'private');
    assert.ok(lab?.closedAt, `${id} is closed once its run ended`);
  }
});
