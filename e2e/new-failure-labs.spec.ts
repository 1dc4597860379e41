import { expect, test } from './fixtures';
import { WORKER_STEP_TIMEOUT } from './pages/lab-page';
import { SessionPage } from './pages/session-page';

/*
 * Two more ways a lock holder outlives its lease (issue 13), each walked through to the end with real
 * workers: the lost update in the table and on the timeline, as the database has it.
 */

test('a takeover without a new token: B is handed A\'s token, and A\'s late "fenced" write is a lost update', async ({
  lab,
  page,
}) => {
  test.setTimeout(120_000);
  const sameToken = lab('same-token-takeover');

  await sameToken.gotoWalkthrough();
  await sameToken.startOver.click();
  await sameToken.expectStep('setup', 'The lab has been reset.');
  await expect(sameToken.rowTable).toHaveAccessibleName(/^unguarded_rows/);

  await sameToken.nextStep();
  await sameToken.expectStep(
    'a-writes',
    /^A, a real process, took the lease with token \d+ and wrote "A-1" with it: accepted\./,
  );
  const tokenA = Number((await sameToken.narration.textContent())?.match(/took the lease with token (\d+)/)?.[1]);

  await sameToken.nextStep();
  await sameToken.expectStep('a-freezes', `A checked its lease ("I hold token ${tokenA} until`);
  await sameToken.nextStep();
  await sameToken.expectStep('a-expires', `still believed it held the lease, its writes carrying token ${tokenA}`);

  // The takeover keeps the token: B holds the very token A holds.
  await sameToken.nextStep();
  await sameToken.expectStep(
    'b-takes-over',
    `B took over A's expired lease, and the lease service handed it A's token ${tokenA} instead of minting a new one. B wrote "B-1" with token ${tokenA}: accepted.`,
  );
  await expect(sameToken.rowValue()).toHaveText('B-1');
  await expect(sameToken.rowToken()).toHaveText(String(tokenA));
  await expect(sameToken.leaseHolder()).toHaveText('B');
  await expect(sameToken.leaseToken()).toHaveText(String(tokenA));

  await sameToken.nextStep();
  await sameToken.expectStep(
    'a-wakes',
    new RegExp(
      `^A woke up and sent its write "A-\\d+" with its token ${tokenA} \\(the same as B's token ${tokenA}\\): accepted\\.`,
    ),
  );
  const lateValue = (await sameToken.narration.textContent())?.match(/sent its write "(A-\d+)"/)?.[1] ?? '';
  expect(lateValue).toMatch(/^A-\d+$/);
  await expect(sameToken.narration).toContainText(
    `${tokenA} <= ${tokenA}: the check cannot tell the stale holder from the new one when both present the same number.`,
  );
  await expect(sameToken.narration).toContainText("B's newer value was overwritten, a lost update.");

  // The table: A's value, under the token both holders present.
  await expect(sameToken.rowValue()).toHaveText(lateValue);
  await expect(sameToken.rowToken()).toHaveText(String(tokenA));

  // The timeline: A's late write accepted, flagged by the checker; B's value was overwritten by it.
  await expect(sameToken.writeMark('A', 'accepted', { value: lateValue, token: tokenA })).toHaveAccessibleName(
    /^Violation: /,
    { timeout: WORKER_STEP_TIMEOUT },
  );
  await expect(sameToken.writeMark('A', 'rejected')).toHaveCount(0);
  await expect(sameToken.rowMark('B-1', tokenA)).toHaveAccessibleName(
    new RegExp(`until A wrote "${lateValue}" with token ${tokenA}$`),
  );
  await expect(sameToken.rowMark(lateValue, tokenA)).toHaveAccessibleName(/still there now$/);
  // The checker names the repeated grant and the lost update.
  // Two violations: the repeated grant (recorded when B takes over), and the one lost update.
  await expect(sameToken.checkerViolations).toHaveText('✗ Checker: 2 violations');
  const violation = (text: string) => page.getByRole('listitem').filter({ hasText: text });
  await expect(violation(`token ${tokenA} granted twice: to A at`)).toBeVisible();
  await expect(
    violation(`lost update: B's value "B-1" (token ${tokenA}) overwritten by A with the same token ${tokenA}`),
  ).toBeVisible();

  await sameToken.nextStep();
  await sameToken.expectStep(
    'the-row',
    `The row holds A's value "${lateValue}" with token ${tokenA}: A’s stale write. B's value "B-1" with token ${tokenA} was lost`,
  );
  await expect(sameToken.narration).toContainText('every grant must mint a new token');
});

test("a drifting clock: nothing freezes, A's slow clock writes after the database's expiry, over B's value", async ({
  lab,
  page,
}) => {
  test.setTimeout(120_000);
  const drifting = lab('drifting-clock');

  await drifting.gotoWalkthrough();
  await drifting.startOver.click();
  await drifting.expectStep('setup', 'The lab has been reset.');
  await expect(drifting.narration).toContainText(
    "The drift is applied to A's reading of the clock; everything else is real.",
  );
  await expect(drifting.rowTable).toHaveAccessibleName(/^unguarded_rows ?\(no guard: a broken lab\)/);

  // A and B start together; A holds the lease, B waits for it.
  await drifting.nextStep();
  await drifting.expectStep(
    'both-start',
    /^A took the lease for 5 s by the database's clock, with token \d+, and wrote "A-1"/,
  );
  const tokenA = Number((await drifting.narration.textContent())?.match(/with token (\d+)/)?.[1]);
  await expect(drifting.narration).toContainText('B started too');

  await drifting.nextStep();
  await drifting.expectStep(
    'a-expires',
    /^By the database's clock, A's lease ran out at \d\d:\d\d:\d\d\.\d{3}\. A did not renew/,
  );
  await expect(drifting.narration).toContainText(
    `Nothing froze: A kept running, and still believed it held the lease with token ${tokenA}`,
  );

  await drifting.nextStep();
  await drifting.expectStep(
    'b-takes-over',
    /^B took the lease with a newer token, \d+, .* wrote "B-1" with token \d+: accepted\./,
  );
  const tokenB = Number((await drifting.narration.textContent())?.match(/newer token, (\d+),/)?.[1]);
  expect(tokenB).toBeGreaterThan(tokenA);

  await drifting.nextStep();
  await drifting.expectStep(
    'a-writes-late',
    new RegExp(
      `A wrote "A-\\d+" with its old token ${tokenA}, \\d+ ms after its lease ran out by the database's clock: accepted\\.`,
    ),
  );
  const lateValue = (await drifting.narration.textContent())?.match(/A wrote "(A-\d+)"/)?.[1] ?? '';
  expect(lateValue).toMatch(/^A-\d+$/);
  await expect(drifting.narration).toContainText("B's newer value was overwritten, a lost update.");
  await expect(drifting.narration).toContainText('In the drifting clock, fenced, the same write is refused');

  // The table: A's value, with A's older token, where B's newer one was.
  await expect(drifting.rowValue()).toHaveText(lateValue);
  await expect(drifting.rowToken()).toHaveText(String(tokenA));

  // The timeline: A's late write accepted, no freeze on A's lane; the database lane shows the token going back.
  await expect(drifting.writeMark('A', 'accepted', { value: lateValue, token: tokenA })).toHaveCount(1, {
    timeout: WORKER_STEP_TIMEOUT,
  });
  await expect(drifting.markTitled(/^(Violation: )?A frozen/)).toHaveCount(0);
  await expect(drifting.rowMark('B-1', tokenB)).toHaveAccessibleName(
    new RegExp(
      `until A wrote "${lateValue}" with token ${tokenA}\\. the token went back from ${tokenB} to ${tokenA}: a lost update$`,
    ),
  );
  // One lost update, one violation: its kinds and their evidence are listed inside it.
  await expect(drifting.checkerViolations).toHaveText('✗ Checker: 1 violation');
  const violation = (text: string | RegExp) => page.getByRole('listitem').filter({ hasText: text });
  await expect(
    violation(`lost update: B's value "B-1" (token ${tokenB}) overwritten by A with token ${tokenA}`),
  ).toBeVisible();
  await expect(
    violation(
      new RegExp(
        `^A wrote "${lateValue}" with token ${tokenA} at .*, \\d+ ms after its lease \\(token ${tokenA}\\) had run out by the database's clock`,
      ),
    ),
  ).toBeVisible();

  await drifting.nextStep();
  await drifting.expectStep('the-row', `The row holds A's value "${lateValue}" with token ${tokenA}: A’s stale write.`);
  await expect(drifting.narration).toContainText("judging the lease by the database's clock");
});

test("a drifting clock, fenced: the same slow clock writes just as late, and the row's token refuses it", async ({
  lab,
  page,
}) => {
  test.setTimeout(120_000);
  const drifting = lab('drifting-clock-fenced');

  await drifting.gotoWalkthrough();
  await drifting.startOver.click();
  await drifting.expectStep('setup', 'The lab has been reset.');
  await expect(drifting.narration).toContainText('every write presents its token');
  await expect(drifting.rowTable).toHaveAccessibleName(
    /^unguarded_rows ?\(the token checked in the write's own statement\)/,
  );

  await drifting.nextStep();
  await drifting.expectStep(
    'both-start',
    /^A took the lease for 5 s by the database's clock, with token \d+, and wrote "A-1"/,
  );
  const tokenA = Number((await drifting.narration.textContent())?.match(/with token (\d+)/)?.[1]);
  await drifting.nextStep();
  await drifting.expectStep('a-expires', /^By the database's clock, A's lease ran out at /);
  await drifting.nextStep();
  await drifting.expectStep(
    'b-takes-over',
    /^B took the lease with a newer token, \d+, .* wrote "B-1" with token \d+: accepted\./,
  );
  const tokenB = Number((await drifting.narration.textContent())?.match(/newer token, (\d+),/)?.[1]);
  expect(tokenB).toBeGreaterThan(tokenA);

  // A believes its slow clock and writes after the database's expiry, as without fencing: refused.
  await drifting.nextStep();
  await drifting.expectStep('a-writes-late', `with its old token ${tokenA}, `);
  await expect(drifting.narration).toContainText(`: rejected as stale, because the row held token ${tokenB}.`);
  await expect(drifting.narration).toContainText('fencing does not ask what A believes');
  await expect(drifting.writeMark('A', 'rejected', { token: tokenA })).not.toHaveCount(0, {
    timeout: WORKER_STEP_TIMEOUT,
  });
  await expect(drifting.markTitled(/^(Violation: )?A frozen/)).toHaveCount(0);
  await expect(drifting.rowValue()).toHaveText('B-1');
  await expect(drifting.rowToken()).toHaveText(String(tokenB));
  await expect(drifting.checkerOk).toBeVisible();

  await drifting.nextStep();
  await drifting.expectStep(
    'the-row',
    new RegExp(
      `^The row holds B's value "B-\\d+" with token ${tokenB}(, written after A’s late write)?\\. A's late write, "A-\\d+" with token ${tokenA}, changed nothing: the row refused it\\.`,
    ),
  );
  await expect(page.getByRole('link', { name: 'the same slow clock without fencing' })).toHaveAttribute(
    'href',
    '/labs/drifting-clock/walkthrough',
  );
});

test('the drifting-clock labs have their drift setting in free play, explained; other labs do not', async ({
  lab,
  page,
}) => {
  const drifting = lab('drifting-clock');
  await drifting.gotoFreePlay();
  const drift = page.getByRole('spinbutton', { name: 'Its clock runs slow by (%)' });
  await expect(drift).toHaveValue('75');
  await expect(drift).toHaveAccessibleDescription(
    /^The drift is applied to this worker's reading of the clock; everything else is real\./,
  );
  const fencedDrift = lab('drifting-clock-fenced');
  await fencedDrift.gotoFreePlay();
  await expect(page.getByRole('spinbutton', { name: 'Its clock runs slow by (%)' })).toHaveValue('75');
  const fenced = lab('fenced');
  await fenced.gotoFreePlay();
  await expect(page.getByRole('spinbutton', { name: 'Lease TTL (s)' })).toBeVisible();
  await expect(page.getByRole('spinbutton', { name: 'Its clock runs slow by (%)' })).toHaveCount(0);
});

test('free play: the same slow-clock worker, asking the database before each write, does not write after its lease ran out', async ({
  lab,
  page,
}) => {
  test.setTimeout(90_000);
  const drifting = lab('drifting-clock');
  await drifting.gotoFreePlay();
  await drifting.reset();
  const drift = page.getByRole('spinbutton', { name: 'Its clock runs slow by (%)' });
  const judge = page.getByRole('combobox', { name: 'It judges its lease by' });
  await expect(judge).toHaveValue('own');
  await expect(judge).toHaveAccessibleDescription(/asking the database before each write, it does not\.$/);
  // A: 75 % slow, a 10 s lease it means to renew after 3.3 s of its clock (13.3 s real): its first write after
  // the lease ended at 10 s comes before that renewal.
  await judge.selectOption({ label: "the database's clock (it asks)" });
  await drift.fill('75');
  await drifting.startWorker('A', 10);
  await expect(drifting.writeMark('A', 'accepted', { value: 'A-1' })).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });
  // B keeps time and waits for the lease; it takes over when A's lease ends by the database's clock.
  await judge.selectOption({ label: 'its own clock' });
  await drift.fill('0');
  await drifting.startWorker('B', 10);
  await expect(drifting.writeMark('B', 'accepted', { value: 'B-1' })).toBeVisible({ timeout: 30_000 });
  // A's next write comes after its lease ended: it asks first, and does not send it.
  const found = drifting.markTitled(/^A found out it lost its lease/);
  await expect(found).not.toHaveCount(0, { timeout: 15_000 });
  await expect(found.first()).toHaveAccessibleName(/the database says my lease is over and B holds it now/);
  await expect(drifting.rowValue()).toHaveText(/^B-\d+$/);
  // No write of A's landed over B's: the row holds B's value, and the checker finds no late write.
  await expect(drifting.checkerOk).toBeVisible();
  await drifting.reset();
});

test('the home page lists the new labs, each with its walkthrough and free play', async ({ page }) => {
  await page.goto('/');
  for (const [id, title] of [
    ['same-token-takeover', 'A takeover without a new token'],
    ['drifting-clock', 'A drifting clock'],
    ['drifting-clock-fenced', 'A drifting clock, fenced'],
  ]) {
    const verdict = id === 'drifting-clock-fenced' ? 'holds' : 'breaks';
    await expect(page.getByRole('heading', { level: 3, name: `${title} (${verdict})`, exact: true })).toBeVisible();
    await expect(page.getByRole('link', { name: `Walkthrough of the ${title} lab` })).toHaveAttribute(
      'href',
      `/labs/${id}/walkthrough`,
    );
    await expect(page.getByRole('link', { name: `Free play in the ${title} lab` })).toHaveAttribute(
      'href',
      `/labs/${id}`,
    );
  }
});

test('a trainee opens a private lab of each kind; in a private drifting clock a slow worker takes the lease and writes', async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const context = await browser.newContext();
  try {
    const trainee = new SessionPage(await context.newPage());
    const sameToken = await trainee.openPrivateLab('A takeover without a new token');
    await expect(trainee.page.getByRole('heading', { level: 1 })).toContainText('A takeover without a new token');
    await expect(sameToken.rowValue()).toHaveText('initial', { timeout: WORKER_STEP_TIMEOUT });
    await trainee.page.getByRole('button', { name: 'Close this lab' }).click();
    await expect(trainee.readOnly).toContainText('Its owner closed this private lab.', {
      timeout: WORKER_STEP_TIMEOUT,
    });

    const drifting = await trainee.openPrivateLab('A drifting clock');
    await expect(drifting.rowValue()).toHaveText('initial', { timeout: WORKER_STEP_TIMEOUT });
    await trainee.page.getByRole('spinbutton', { name: 'Its clock runs slow by (%)' }).fill('50');
    await drifting.startWorker('Slow', 3);
    await expect(drifting.writeMark('Slow', 'accepted', { value: 'Slow-1' })).toBeVisible({
      timeout: WORKER_STEP_TIMEOUT,
    });
    await expect(drifting.rowValue()).toHaveText(/^Slow-\d+$/);
    await trainee.page.getByRole('button', { name: 'Close this lab' }).click();
    await expect(trainee.readOnly).toContainText('Its owner closed this private lab.', {
      timeout: WORKER_STEP_TIMEOUT,
    });
  } finally {
    await context.close();
  }
});
