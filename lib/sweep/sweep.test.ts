import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { findLab } from '../../db/labs';
import { closePool } from '../../db/pool';
import { describeRun } from '../model/sweep/sweep-cell';
import { sweepRuns } from '../model/sweep/sweep-grid';
import { getSupervisor } from '../supervisor/supervisor';
import { runSweep, runSweepRun } from './run-sweep';

/*
 * The sweep's cells agree with running the same parameters one by one: a 2 × 2 sweep, two runs at
 * a time, each in a private lab of its own, then each of its runs alone. The points are chosen far
 * from the edge (a pause of 0.3 s against leases of 2 and 3 s, renewed every third of them, and one
 * of more than twice the longest lease), so that the outcome does not hang on the scheduling of a
 * machine under load (a worker starved for a second still renews in time).
 */

after(async () => {
  await getSupervisor().shutdown();
  await closePool();
});

const grid = { pausesMs: [300, 6_500], ttlsMs: [2_000, 3_000], driftsPercent: [0] };

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
      [300, 2000, 'unfenced', 'no-stale-write'],
      [300, 2000, 'fenced', 'no-stale-write'],
      [6500, 2000, 'unfenced', 'stale-accepted'],
      [6500, 2000, 'fenced', 'stale-rejected'],
      [300, 3000, 'unfenced', 'no-stale-write'],
      [300, 3000, 'fenced', 'no-stale-write'],
      [6500, 3000, 'unfenced', 'stale-accepted'],
      [6500, 3000, 'fenced', 'stale-rejected'],
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
