import { expect, test } from './fixtures';
import { WORKER_STEP_TIMEOUT } from './pages/lab-page';

test('free play: freeze the holder past its lease, B takes over, A wakes up and is rejected', async ({ lab, page }) => {
  test.setTimeout(120_000);
  const fenced = lab('fenced');
  await fenced.gotoFreePlay();
  await fenced.reset();
  await expect(fenced.rowValue()).toHaveText('initial');

  // A, with a short lease, takes it first; B, started second, waits for it.
  await fenced.startWorker('A', 2);
  const tokenA = await fenced.waitForLeaseHolder('A');
  await expect(fenced.writeMark('A', 'accepted', { value: 'A-1', token: tokenA })).toBeVisible({
    timeout: WORKER_STEP_TIMEOUT,
  });
  await expect(fenced.workerName).toHaveValue('B'); // the next free name is suggested
  await fenced.startWorker('B', 3);
  await expect(fenced.worker('B')).toHaveAccessibleName(/waiting for the lease/, { timeout: WORKER_STEP_TIMEOUT });
  await expect(fenced.worker('A')).toBeChecked(); // the commands act on A
  await expect(fenced.worker('A')).toHaveAccessibleName(new RegExp(`holds the lease · token ${tokenA}$`));

  // A freeze far longer than A's 2 s lease, set off from the keyboard as the shortcuts list says.
  await fenced.pauseLength.fill('30');
  await expect(fenced.pauseFor).toHaveAccessibleName(/^Pause 30 s/);
  await fenced.shortcuts.click();
  await expect(fenced.controls.getByRole('term').filter({ hasText: /^W$/ })).toBeVisible();
  await expect(
    fenced.controls.getByRole('definition').filter({ hasText: /^freeze it before its next write/ }),
  ).toBeVisible();
  await fenced.shortcuts.focus(); // out of the text field: shortcuts are ignored while typing
  await page.keyboard.press('w');
  await expect(fenced.notice).toHaveText(/A will freeze between its lease check and its next write for 30 s\./);
  await expect(fenced.worker('A')).toHaveAccessibleName(/^A frozen/, { timeout: WORKER_STEP_TIMEOUT });
  await expect(fenced.markTitled('A frozen in its critical window')).toBeVisible();

  // A's lease runs out while it is frozen: B takes over with a newer token and writes.
  await expect(fenced.leaseHolder()).toHaveText('B', { timeout: WORKER_STEP_TIMEOUT });
  const tokenB = Number(await fenced.leaseToken().textContent());
  expect(tokenB).toBeGreaterThan(tokenA);
  await expect(fenced.writeMark('B', 'accepted', { value: 'B-1', token: tokenB })).toBeVisible({
    timeout: WORKER_STEP_TIMEOUT,
  });
  await expect(fenced.markTitled(`A believes it holds token ${tokenA}, but its lease ran out`)).toBeVisible();
  await expect(fenced.resume).toBeEnabled();

  // Resume A: its write leaves with the old token and the database rejects it.
  await fenced.resume.click();
  await expect(fenced.notice).toHaveText(/A resumed\./, { timeout: WORKER_STEP_TIMEOUT });
  const rejected = fenced.writeMark('A', 'rejected', { token: tokenA });
  await expect(rejected).toHaveCount(1, { timeout: WORKER_STEP_TIMEOUT });
  await expect(rejected).toHaveAccessibleName(new RegExp(`the row holds token ${tokenB}$`));
  await expect(fenced.markTitled(`A found out it lost its lease (token ${tokenA})`)).toBeVisible();
  await expect(fenced.worker('A')).toHaveAccessibleName(/^A waiting for the lease/, { timeout: WORKER_STEP_TIMEOUT });

  // B's value is intact, and B still holds the lease.
  await expect(fenced.rowValue()).toHaveText(/^B-\d+$/);
  await expect(fenced.rowToken()).toHaveText(String(tokenB));
  await expect(fenced.leaseHolder()).toHaveText('B');
  await expect(fenced.leaseToken()).toHaveText(String(tokenB));
  await expect(fenced.checkerOk).toBeVisible();
});
