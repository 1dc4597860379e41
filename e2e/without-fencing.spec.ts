import { expect, test } from './fixtures';
import { WORKER_STEP_TIMEOUT } from './pages/lab-page';

test('without fencing, the same pause ends in a lost update: the table and the timeline show it', async ({ lab }) => {
  test.setTimeout(120_000);
  const noFencing = lab('no-fencing');

  // Start over runs the first step, the reset, for real.
  await noFencing.gotoWalkthrough();
  await noFencing.startOver.click();
  await noFencing.expectStep('setup', 'The lab has been reset.');
  await expect(noFencing.rowTable).toHaveAccessibleName(/^unguarded_rows/);

  await noFencing.nextStep();
  await noFencing.expectStep(
    'a-writes',
    /^A, a real process, took the lease with token \d+ and wrote "A-1" with it: accepted\./,
  );
  const tokenA = Number((await noFencing.narration.textContent())?.match(/took the lease with token (\d+)/)?.[1]);

  await noFencing.nextStep();
  await noFencing.expectStep('a-freezes', `A checked its lease ("I hold token ${tokenA} until`);

  await noFencing.nextStep();
  await noFencing.expectStep('a-expires', `still believed it held the lease, its writes carrying token ${tokenA}`);

  await noFencing.nextStep();
  await noFencing.expectStep(
    'b-takes-over',
    /^B took the lease with a newer token, \d+, .* B wrote "B-1" with token \d+: accepted\./,
  );
  const tokenB = Number((await noFencing.narration.textContent())?.match(/newer token, (\d+),/)?.[1]);
  expect(tokenB).toBeGreaterThan(tokenA);
  await expect(noFencing.rowValue()).toHaveText('B-1');
  await expect(noFencing.rowToken()).toHaveText(String(tokenB));
  // Nothing has been lost yet, and the checker says no more than that.
  await expect(noFencing.checkerOk).toHaveText('✓ Checker: no violation yet');

  // A wakes up: with no token check, its write with the older token goes through.
  await noFencing.nextStep();
  await noFencing.expectStep('a-wakes', /^A woke up and sent its write "A-\d+" with its old token \d+: accepted\./);
  const lateValue = (await noFencing.narration.textContent())?.match(/sent its write "(A-\d+)"/)?.[1] ?? '';
  expect(lateValue).toMatch(/^A-\d+$/);
  await expect(noFencing.narration).toContainText(
    `The row went from "B-1" (token ${tokenB}) to "${lateValue}" (token ${tokenA}): B's newer value was overwritten, a lost update.`,
  );

  // The table: A's value, with A's older token, where B's newer one was.
  await expect(noFencing.rowValue()).toHaveText(lateValue);
  await expect(noFencing.rowToken()).toHaveText(String(tokenA));

  // The timeline: A's late write is an accepted mark; nothing on A's lane was rejected.
  await expect(noFencing.writeMark('A', 'accepted', { value: lateValue, token: tokenA })).toHaveCount(1, {
    timeout: WORKER_STEP_TIMEOUT,
  });
  await expect(noFencing.writeMark('A', 'rejected')).toHaveCount(0);
  // The database lane: B's value was overwritten by an older token.
  const overwritten = noFencing.rowMark('B-1', tokenB);
  await expect(overwritten).toHaveAccessibleName(
    new RegExp(
      `until A wrote "${lateValue}" with token ${tokenA}\\. the token went back from ${tokenB} to ${tokenA}: a lost update$`,
    ),
  );
  await expect(noFencing.rowMark(lateValue, tokenA)).toHaveAccessibleName(/still there now$/);
  // And the history checker says so: one lost update, one violation, the rules it broke inside it.
  await expect(noFencing.checkerViolations).toHaveText('✗ Checker: 1 violation');
  await expect(
    noFencing.page.getByRole('listitem').filter({
      hasText: `lost update: B's value "B-1" (token ${tokenB}) overwritten by A with token ${tokenA}`,
    }),
  ).toContainText(" — the row went back to an older token; written under a lease superseded by B's");

  await noFencing.nextStep();
  await noFencing.expectStep(
    'the-row',
    `The row holds A's value "${lateValue}" with token ${tokenA}: A’s stale write. B's value "B-1" with token ${tokenB} was lost`,
  );
  await expect(noFencing.rowValue()).toHaveText(lateValue);
  await expect(noFencing.rowToken()).toHaveText(String(tokenA));
});
