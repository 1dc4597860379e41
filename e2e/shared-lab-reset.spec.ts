import { seriousViolations } from './axe';
import { expect, test } from './fixtures';
import { WORKER_STEP_TIMEOUT } from './pages/lab-page';

test('a shared lab’s reset asks first: Cancel and Escape leave the lab as it is, Confirm resets it', async ({
  lab,
  page,
}) => {
  test.setTimeout(90_000);
  const fenced = lab('fenced');
  await fenced.gotoFreePlay();
  await fenced.reset();
  await fenced.startWorker('A', 3);
  await fenced.waitForLeaseHolder('A');
  await expect(fenced.writeMark('A', 'accepted', { value: 'A-1' })).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });
  const marks = await fenced.marks.count();

  // The button asks, and the safe answer has the focus.
  await fenced.resetLab.click();
  await expect(fenced.resetDialog).toBeVisible();
  await expect(fenced.resetDialog).toContainText('for the whole room');
  await expect(fenced.resetDialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  expect(await seriousViolations(page)).toEqual([]);
  await fenced.resetDialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(fenced.resetDialog).toBeHidden();
  // Escape, from the X shortcut's question, cancels too.
  await page.keyboard.press('x');
  await expect(fenced.resetDialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(fenced.resetDialog).toBeHidden();
  // Nothing was reset: A still holds the lease and its marks are all there.
  await expect(fenced.worker('A')).toHaveAccessibleName(/holds the lease/);
  expect(await fenced.marks.count()).toBeGreaterThanOrEqual(marks);
  await expect(fenced.notice).not.toHaveText(/The lab was reset/);

  // By the keyboard alone: X, Tab to the reset, Enter.
  await page.keyboard.press('x');
  await expect(fenced.resetDialog).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(fenced.resetDialog.getByRole('button', { name: 'Reset the lab' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(fenced.resetDialog).toBeHidden();
  await expect(fenced.notice).toHaveText(/The lab was reset/, { timeout: WORKER_STEP_TIMEOUT });
  await expect(fenced.noWorkers).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });
  await expect(fenced.marks).toHaveCount(0);
});
