import { expect, test } from './fixtures';
import { type LabPage, WORKER_STEP_TIMEOUT } from './pages/lab-page';

/** Each name once: a mark drawn twice (an event delivered twice) shows up as a repeated name. */
function repeated(names: string[]): string[] {
  return names.filter((name, i) => names.indexOf(name) !== i);
}

const isAcceptedWrite = (name: string) => /^(Violation: )?\S+'s write ".*" with token \d+: accepted\./.test(name);
const isRowChange = (name: string) => /^(Violation: )?The row holds /.test(name);

/** Every accepted write is one change of the row on the database lane, counted in one look at the timeline. */
function expectOneRowChangePerAcceptedWrite(names: string[]) {
  expect(names.filter(isRowChange).length).toBe(names.filter(isAcceptedWrite).length);
}

async function startTwoWorkers(fenced: LabPage) {
  await fenced.gotoFreePlay();
  await fenced.reset();
  await fenced.startWorker('A', 2);
  const tokenA = await fenced.waitForLeaseHolder('A');
  await fenced.startWorker('B', 2);
  await expect(fenced.worker('B')).toHaveAccessibleName(/waiting for the lease/, { timeout: WORKER_STEP_TIMEOUT });
  return tokenA;
}

test('a reload while the workers run: every write drawn before is drawn again, once', async ({ lab, page }) => {
  test.setTimeout(120_000);
  const fenced = lab('fenced');
  await startTwoWorkers(fenced);
  await fenced.zoomOutTo(112); // every mark since the reset on screen, so every one is drawn
  await expect(fenced.writeMark('A', 'accepted', { value: 'A-4' })).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });

  const before = await fenced.markNames(fenced.writeMarks);
  expect(before.length).toBeGreaterThanOrEqual(4);
  expect(repeated(before)).toEqual([]);

  await page.reload();
  await fenced.zoomOutTo(112);
  // The history comes back from the database; the workers go on writing meanwhile, so new writes may
  // have been added, but every write drawn before the reload is there, and no write is drawn twice.
  await expect
    .poll(async () => fenced.markNames(fenced.writeMarks), { timeout: WORKER_STEP_TIMEOUT })
    .toEqual(expect.arrayContaining(before));
  const after = await fenced.markNames(fenced.writeMarks);
  expect(repeated(after)).toEqual([]);
  // Only newer writes were added, after the last one seen before: A's values keep counting up.
  const values = after.map((name) => name.match(/^A's write "A-(\d+)"/)?.[1]).filter((n) => n !== undefined);
  expect(values.map(Number)).toEqual(values.map((_, i) => i + 1));
  expectOneRowChangePerAcceptedWrite(await fenced.markNames());
});

test('a reload with every worker frozen: the rebuilt timeline is the same, mark for mark', async ({ lab, page }) => {
  test.setTimeout(120_000);
  const fenced = lab('fenced');
  const tokenA = await startTwoWorkers(fenced);
  await fenced.zoomOutTo(112); // every mark since the reset on screen, so every one is drawn
  await expect(fenced.writeMark('A', 'accepted', { value: 'A-2' })).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });

  // Freeze A until resumed: its lease runs out, B takes over and writes.
  await expect(fenced.worker('A')).toBeChecked();
  await fenced.pauseUntilResumed.click();
  await expect(fenced.worker('A')).toHaveAccessibleName(/^A frozen/, { timeout: WORKER_STEP_TIMEOUT });
  const tokenB = await fenced.waitForLeaseHolder('B');
  expect(tokenB).toBeGreaterThan(tokenA);
  await expect(fenced.writeMark('B', 'accepted', { value: 'B-2' })).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });

  // Then freeze B as well. With nobody running, nothing can happen but B's lease running out.
  await fenced.worker('B').check();
  await fenced.pauseUntilResumed.click();
  await expect(fenced.worker('B')).toHaveAccessibleName(/^B frozen/, { timeout: WORKER_STEP_TIMEOUT });
  await expect(fenced.leaseExpiry()).toHaveText(/^expired /, { timeout: WORKER_STEP_TIMEOUT });
  await expect(fenced.markTitled(`B believes it holds token ${tokenB}, but its lease ran out`)).toBeVisible({
    timeout: WORKER_STEP_TIMEOUT,
  });
  // The timeline has settled once two reads a moment apart agree (the expiry is recorded within a
  // pass of the expiry recorder, every 50 ms, and is delivered with the next snapshot).
  let before: string[] = [];
  await expect
    .poll(
      async () => {
        const previous = before;
        before = (await fenced.markNames()).toSorted();
        return before.length > 0 && JSON.stringify(before) === JSON.stringify(previous);
      },
      { timeout: WORKER_STEP_TIMEOUT, intervals: [1_000] },
    )
    .toBe(true);
  expect(repeated(before)).toEqual([]);
  expectOneRowChangePerAcceptedWrite(before);
  const writesBefore = await fenced.writeMarks.count();
  const rowChangesBefore = await fenced.rowMarks.count();

  await page.reload();
  await fenced.zoomOutTo(112);
  await expect
    .poll(async () => (await fenced.markNames()).toSorted(), { timeout: WORKER_STEP_TIMEOUT })
    .toEqual(before);
  await expect(fenced.writeMarks).toHaveCount(writesBefore);
  await expect(fenced.rowMarks).toHaveCount(rowChangesBefore);
  await expect(fenced.timeline.getByRole('group', { name: 'Timeline of 2 holders and the database' })).toBeVisible();
  // The frozen workers are still frozen after the reload; the page only rebuilt its view.
  await expect(fenced.worker('A')).toHaveAccessibleName(/^A frozen/);
  await expect(fenced.worker('B')).toHaveAccessibleName(/^B frozen/);
});
