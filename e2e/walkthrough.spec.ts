import { seriousViolations } from './axe';
import { expect, test } from './fixtures';
import { WORKER_STEP_TIMEOUT } from './pages/lab-page';
import { stepCountOf, stepNumberOf, stepOf } from './steps';

test('the fenced walkthrough, step by step: the paused holder wakes up and its stale write is rejected', async ({
  lab,
}) => {
  test.setTimeout(120_000);
  const fenced = lab('fenced');

  // A session is under way (A, then Z, run in free play); arriving changes nothing: the walkthrough
  // offers to begin. Its first step, by a click, resets the lab for real. Until then every panel shows
  // the lab live, as the words say: not the moment of a step it never ran (A's grant would complete
  // the story's second step, and hold the panels at the first's, before A was there).
  await fenced.gotoFreePlay();
  await fenced.startWorker('A', 3);
  await fenced.waitForLeaseHolder('A');
  await fenced.startWorker('Z', 3);
  await fenced.gotoWalkthrough();
  await expect(fenced.where).toHaveText(/^This lab is not following the walkthrough now \(Z is not one/);
  await expect(fenced.narration).toContainText('Ready when you are');
  await expect(fenced.leaseHolder()).toHaveText('A');
  await expect(fenced.page.getByText(/^(as at|live now,)/)).toHaveCount(0);
  await fenced.runSteps.click();
  await fenced.expectStep('setup', 'The lab has been reset: no workers, no history.');
  await expect(fenced.where).toHaveCount(0);
  await expect(fenced.noHolderYet).toBeVisible();
  await expect(fenced.nobodyHoldsTheLease).toBeVisible();
  await expect(fenced.back).toBeDisabled();

  // A takes the lease and writes.
  await fenced.nextStep();
  await fenced.expectStep(
    'a-writes',
    /^A, a real process, took the lease with token \d+ and wrote "A-1" with it: accepted\./,
  );
  const tokenA = Number((await fenced.narration.textContent())?.match(/took the lease with token (\d+)/)?.[1]);
  await expect(fenced.writeMark('A', 'accepted', { value: 'A-1', token: tokenA })).toBeVisible();
  await expect(fenced.leaseHolder()).toHaveText('A');
  await expect(fenced.leaseToken()).toHaveText(String(tokenA));

  // A freezes in its critical window: after its lease check, before its write.
  await fenced.nextStep();
  await fenced.expectStep('a-freezes', `A checked its lease ("I hold token ${tokenA} until`);
  await expect(fenced.markTitled('A frozen in its critical window')).toBeVisible();

  // A's lease runs out by the database's clock; frozen A still believes it holds it.
  await fenced.nextStep();
  await fenced.expectStep('a-expires', `still believed it held the lease, its writes carrying token ${tokenA}`);
  await expect(fenced.markTitled(`A believes it holds token ${tokenA}, but its lease ran out`)).toBeVisible();

  // B takes over with a newer token and writes.
  await fenced.nextStep();
  await fenced.expectStep(
    'b-takes-over',
    /^B took the lease with a newer token, \d+, .* B wrote "B-1" with token \d+: accepted\./,
  );
  const tokenB = Number((await fenced.narration.textContent())?.match(/newer token, (\d+),/)?.[1]);
  expect(tokenB).toBeGreaterThan(tokenA);
  await expect(fenced.writeMark('B', 'accepted', { value: 'B-1', token: tokenB })).toBeVisible();
  await expect(fenced.leaseHolder()).toHaveText('B');
  await expect(fenced.leaseToken()).toHaveText(String(tokenB));

  // A wakes up and sends its write with its old token: the database turns it away.
  await fenced.nextStep();
  await fenced.expectStep(
    'a-wakes',
    `with its old token ${tokenA}: rejected as stale, because the row held token ${tokenB}.`,
  );
  const rejected = fenced.writeMark('A', 'rejected', { token: tokenA });
  await expect(rejected).toHaveCount(1, { timeout: WORKER_STEP_TIMEOUT });
  await expect(rejected).toHaveAccessibleName(
    new RegExp(`with token ${tokenA}: rejected as stale\\..*the row holds token ${tokenB}$`),
  );
  await expect(fenced.markTitled(`A found out it lost its lease (token ${tokenA})`)).toBeVisible();
  // The late write did not get through as well: no accepted mark carries its value.
  const lateValue = (await rejected.getAttribute('aria-label'))?.match(/^A's write "(A-\d+)"/)?.[1] ?? '';
  expect(lateValue).toMatch(/^A-\d+$/);
  await expect(fenced.writeMark('A', 'accepted', { value: lateValue })).toHaveCount(0);

  // The row: B's value is intact, in the narration and in the table.
  await fenced.nextStep();
  await fenced.expectStep(
    'the-row',
    `The row holds B's value "B-1" with token ${tokenB}. A's late write, "${lateValue}" with token ${tokenA}, changed nothing`,
  );
  await expect(fenced.next).toBeDisabled();
  await expect(fenced.rowValue()).toHaveText('B-1');
  await expect(fenced.rowToken()).toHaveText(String(tokenB));
  await expect(fenced.rowMark('B-1', tokenB)).toHaveAccessibleName(/still there now$/);
  await expect(fenced.page.getByRole('link', { name: 'the same pause without fencing' })).toBeVisible();
  // The history checker finds nothing wrong: no write went through with an older token.
  await expect(fenced.checkerOk).toBeVisible();
  await expect(fenced.checkerViolations).toHaveCount(0);
  // At its end, every kind of mark drawn: no serious or critical accessibility violation.
  expect(await seriousViolations(fenced.page)).toEqual([]);

  // Back shows the earlier narration again without running anything.
  await fenced.back.click();
  await fenced.expectStep('a-wakes', `with its old token ${tokenA}: rejected as stale`);

  // A step is a moment: back at A's first write, every panel shows the lab as it was then, and says so.
  const writes = stepNumberOf('fenced', 'a-writes');
  for (let step = stepNumberOf('fenced', 'a-wakes') - 1; step >= writes; step--) {
    await fenced.back.click();
    await expect(fenced.stepCounter).toHaveText(stepOf('fenced', step));
  }
  await expect(fenced.rowValue()).toHaveText('A-1');
  await expect(fenced.leaseHolder()).toHaveText('A');
  await expect(fenced.leaseToken()).toHaveText(String(tokenA));
  await expect(
    fenced.page.getByText(new RegExp(`^as at step ${writes}, \\d\\d:\\d\\d:\\d\\d\\.\\d{3}$`)).first(),
  ).toBeVisible();
  await expect(fenced.writeMark('B', 'accepted', { value: 'B-1', token: tokenB })).toHaveCount(0);
  // The reset: no row, no lease, no holder on the timeline, whatever the lab holds now.
  await fenced.back.click();
  await fenced.expectStep('setup', 'The lab has been reset: no workers, no history.');
  await expect(fenced.noHolderYet).toBeVisible();
  await expect(fenced.nobodyHoldsTheLease).toBeVisible();
  await expect(fenced.page.getByText('No write yet at this moment.')).toBeVisible();
  // Forward to the last step again: live, and saying how long after the step it is.
  const last = stepCountOf('fenced');
  for (let step = stepNumberOf('fenced', 'setup') + 1; step <= last; step++) await fenced.nextStep();
  await expect(fenced.page.getByText(new RegExp(`^live now, \\d+ s after step ${last}$`)).first()).toBeVisible();
  await expect(fenced.rowValue()).toHaveText('B-1');
});
