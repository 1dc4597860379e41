import { seriousViolations } from './axe';
import { expect, test } from './fixtures';
import { ComparePage } from './pages/compare-page';
import { WORKER_STEP_TIMEOUT } from './pages/lab-page';

test('the fenced and the unfenced labs after the pause part at A’s late write: rejected in one, accepted in the other', async ({
  page,
  lab,
  runScenario,
}) => {
  test.setTimeout(180_000);
  // Touched, so that both are reset when the test ends.
  lab('fenced');
  lab('no-fencing');
  const fenced = await runScenario('pause');
  const unfenced = await runScenario('no-fencing', { unsafe: true });
  expect(unfenced.find((line) => line.step === 'verdict')?.safe).toBe(false);
  const takeover = Number(fenced.find((line) => line.step === 'takeover-writes')?.token);
  expect(takeover).toBeGreaterThan(0);

  const compare = new ComparePage(page);
  await compare.goto('fenced', 'no-fencing');
  await expect(compare.firstPicker.getByLabel('Lab (live)')).toHaveValue('fenced');
  await expect(compare.secondPicker.getByLabel('Lab (live)')).toHaveValue('no-fencing');
  await expect(compare.difference).toHaveText(
    new RegExp(
      `^First difference, A's step \\d+: in Fenced, A's write with token #1 \\(\\d+\\) was rejected as stale: the row held token #2 \\(${takeover}\\); in No fencing, A's write with token #1 \\(\\d+\\) was accepted\\.$`,
    ),
    { timeout: WORKER_STEP_TIMEOUT },
  );

  // By the keyboard: the button moves both timelines to the difference, marked on each.
  await compare.showDifference.focus();
  await page.keyboard.press('Enter');
  await expect(compare.marker(compare.first)).toHaveText('first difference');
  await expect(compare.marker(compare.second)).toHaveText('first difference');
  await expect(compare.details(compare.first)).toContainText(/A's write "A-\d+" with token \d+: rejected as stale/);
  await expect(compare.details(compare.second)).toContainText(/A's write "A-\d+" with token \d+: accepted/);
  // The verdicts beside them: the fenced lab safe, the unfenced one with its lost update.
  await expect(page.getByText('✓ Checker: no violation')).toBeVisible();
  await expect(page.getByRole('alert').filter({ hasText: /✗ Checker: \d+ violation/ })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
});

test('a lab this browser may not see is not offered, and asking for it by address shows nothing of it', async ({
  page,
}) => {
  const compare = new ComparePage(page);
  await compare.goto('p-aaaaaaaaaa', 'fenced');
  await expect(compare.firstPicker.getByLabel('Lab (live)')).toHaveValue('');
  await expect(compare.firstPicker.getByRole('option', { name: /p-aaaaaaaaaa/ })).toHaveCount(0);
  await expect(compare.first).toHaveCount(0);
  await expect(compare.second).toBeVisible();
  await expect(compare.difference).toHaveText('Choose two histories to compare.');
});
