import { expect, test } from './fixtures';
import { WORKER_STEP_TIMEOUT } from './pages/lab-page';
import { SessionPage } from './pages/session-page';

/*
 * A delayed packet (issue 13), walked through to the end in both labs with real workers behind a real
 * proxy: nothing freezes, A's write is held on the wire past its lease, B takes over and writes, and
 * the held write arrives. Fenced: rejected on A's lane, B's value in the table. Unfenced: the lost
 * update in the table, on the timeline and named by the checker.
 */

for (const fenced of [true, false]) {
  const id = fenced ? 'delayed-packet' : 'delayed-packet-unfenced';
  test(`${id}: the held write arrives after B's and is ${fenced ? 'rejected' : 'a lost update'}`, async ({
    lab,
    page,
  }) => {
    test.setTimeout(120_000);
    const packet = lab(id);
    await packet.gotoWalkthrough();
    await packet.startOver.click();
    await packet.expectStep('setup', 'The lab has been reset.');
    await expect(packet.narration).toContainText('the held bytes are really held, on a real TCP socket');
    await expect(packet.rowTable).toHaveAccessibleName(/^unguarded_rows/);

    await packet.nextStep();
    await packet.expectStep(
      'a-writes',
      /^A took the lease for 2 s by the database's clock, with token \d+, and wrote "A-1"/,
    );
    const tokenA = Number((await packet.narration.textContent())?.match(/with token (\d+)/)?.[1]);

    // The proxy holds A's next write; A is not frozen, and its lease runs out.
    await packet.nextStep();
    await packet.expectStep(
      'write-held',
      new RegExp(
        `^A sent "A-\\d+" with token ${tokenA} at .*, while its lease still ran\\. The proxy held those bytes`,
      ),
    );
    const heldValue = (await packet.narration.textContent())?.match(/^A sent "(A-\d+)"/)?.[1] ?? '';
    await expect(packet.markTitled(/^(Violation: )?A frozen/)).toHaveCount(0);

    await packet.nextStep();
    await packet.expectStep(
      'b-takes-over',
      /^B took the lease with a newer token, \d+, .* wrote "B-1" with token \d+: accepted\./,
    );
    const tokenB = Number((await packet.narration.textContent())?.match(/newer token, (\d+),/)?.[1]);
    expect(tokenB).toBeGreaterThan(tokenA);
    await expect(packet.rowValue()).toHaveText('B-1');
    await expect(packet.narration).toContainText("A's write was still on the wire.");

    // Released: PostgreSQL receives A's write late, with A's old token.
    await packet.nextStep();
    if (fenced) {
      await packet.expectStep(
        'held-write-arrives',
        `"${heldValue}" with token ${tokenA}, rejected as stale, because the row held token ${tokenB}.`,
      );
      const rejected = packet.writeMark('A', 'rejected', { value: heldValue, token: tokenA });
      await expect(rejected).toHaveCount(1, { timeout: WORKER_STEP_TIMEOUT });
      // Sent while A held the lease, decided by PostgreSQL seconds later: the held bytes.
      await expect(rejected).toHaveAccessibleName(
        new RegExp(
          `rejected as stale\\. sent at [\\d:.]+, decided at [\\d:.]+ .*the row holds token ${tokenB}\\. write path: fenced$`,
        ),
      );
      await expect(packet.rowValue()).toHaveText('B-1');
      await expect(packet.rowToken()).toHaveText(String(tokenB));
      await expect(packet.checkerOk).toBeVisible();
      await packet.nextStep();
      await packet.expectStep('the-row', `The row holds B's value "B-1" with token ${tokenB}.`);
      await expect(packet.narration).toContainText(
        `retried the same write with the same token ${tokenA} would be refused the same way`,
      );
      await expect(page.getByRole('link', { name: 'the same delayed packet without fencing' })).toBeVisible();
    } else {
      await packet.expectStep('held-write-arrives', `"${heldValue}" with token ${tokenA}, accepted.`);
      await expect(packet.narration).toContainText('lost update');
      // The table: A's held value, with A's older token, where B's newer one was.
      await expect(packet.rowValue()).toHaveText(heldValue);
      await expect(packet.rowToken()).toHaveText(String(tokenA));
      // The timeline: A's delayed write accepted and flagged; the row's token went back.
      await expect(packet.writeMark('A', 'accepted', { value: heldValue, token: tokenA })).toHaveAccessibleName(
        /^Violation: /,
        { timeout: WORKER_STEP_TIMEOUT },
      );
      await expect(packet.rowMark('B-1', tokenB)).toHaveAccessibleName(
        new RegExp(
          `until A wrote "${heldValue}" with token ${tokenA}\\. the token went back from ${tokenB} to ${tokenA}: a lost update$`,
        ),
      );
      // One lost update, one violation; the late write's evidence is listed under it.
      await expect(packet.checkerViolations).toHaveText('✗ Checker: 1 violation');
      const violation = (text: string | RegExp) => page.getByRole('listitem').filter({ hasText: text });
      await expect(
        violation(`lost update: B's value "B-1" (token ${tokenB}) overwritten by A with token ${tokenA}`),
      ).toContainText('sent while its lease ran, received after it ran out');
      await expect(violation(/^A wrote .*: a stale write accepted after its lease expired \(sent at /)).toBeVisible();
      await packet.nextStep();
      await packet.expectStep(
        'the-row',
        `The row holds A's value "${heldValue}" with token ${tokenA}: A’s stale write.`,
      );
      await expect(packet.narration).toContainText('the same write can be applied twice');
    }
  });
}

test('the delayed-packet labs have the hold and release controls in free play; other labs do not', async ({
  lab,
  page,
}) => {
  const packet = lab('delayed-packet-unfenced');
  await packet.gotoFreePlay();
  const network = page.getByRole('group', { name: /^The network between .* and PostgreSQL$/ });
  await expect(network).toHaveAccessibleDescription(/^Each worker here reaches PostgreSQL through a proxy/);
  await expect(network.getByRole('button', { name: /^Hold .*'s connection$/ })).toBeDisabled();
  const timeout = page.getByRole('spinbutton', { name: 'Client timeout, then retry (s)' });
  await expect(timeout).toHaveValue('0');
  await expect(timeout).toHaveAccessibleDescription(/^Client timeout: 0 waits for an answer, however late\./);
  const fenced = lab('fenced');
  await fenced.gotoFreePlay();
  await expect(page.getByRole('group', { name: /^The network between/ })).toHaveCount(0);
  await expect(page.getByRole('spinbutton', { name: 'Client timeout, then retry (s)' })).toHaveCount(0);
});

test('the home page lists both delayed-packet labs, the fenced one ✓ (holds)', async ({ page }) => {
  await page.goto('/');
  for (const [id, mark, verdict, title] of [
    ['delayed-packet', '✓', 'holds', 'A delayed packet, fenced'],
    ['delayed-packet-unfenced', '✗', 'breaks', 'A delayed packet, unfenced'],
  ]) {
    // The ✓ or ✗ is for the eye: a screen reader hears the words after the name instead.
    const heading = page.getByRole('heading', { level: 3, name: `${title} (${verdict})`, exact: true });
    await expect(heading).toBeVisible();
    await expect(heading).toContainText(`${mark} ${title}`);
    await expect(page.getByRole('link', { name: `Walkthrough of the ${title} lab` })).toHaveAttribute(
      'href',
      `/labs/${id}/walkthrough`,
    );
  }
});

test("a trainee's private delayed packet: its worker writes through its proxy, which holds its next write and releases it", async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const context = await browser.newContext();
  try {
    const trainee = new SessionPage(await context.newPage());
    const packet = await trainee.openPrivateLab('A delayed packet, unfenced');
    await expect(packet.rowValue()).toHaveText('initial', { timeout: WORKER_STEP_TIMEOUT });
    // Its workers run behind this server's proxy: no command for a worker of one's own machine.
    await expect(trainee.page.getByTestId('own-machine-worker')).toHaveCount(0);
    await packet.startWorker('A', 3);
    await expect(packet.writeMark('A', 'accepted', { value: 'A-1' })).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });
    await packet.worker('A').check();
    const network = trainee.page.getByRole('group', { name: 'The network between A and PostgreSQL' });
    await network.getByRole('button', { name: "Hold A's connection" }).click();
    await expect(packet.notice).toHaveText(
      /the proxy holds A's next write, and everything after it on that connection/,
      {
        timeout: WORKER_STEP_TIMEOUT,
      },
    );
    // Held: A's writes stop reaching PostgreSQL while A runs (its lease runs out: nobody else wants it).
    const value = packet.rowValue();
    await expect(value).toHaveText(/^A-\d+$/);
    const before = await value.textContent();
    // Until A's lease has run out while A still believes it holds it (its held write unanswered, it
    // cannot renew): a fact drawn only once A had seconds to write, and the row is still as it was.
    await expect(packet.markTitled(/^A believes it holds token \d+, but its lease ran out/).first()).toBeVisible({
      timeout: WORKER_STEP_TIMEOUT,
    });
    await expect(value).toHaveText(before ?? '');
    await network.getByRole('button', { name: "Release A's connection" }).click();
    await expect(packet.notice).toHaveText(/released \d+ held bytes of A's: PostgreSQL receives its write now/, {
      timeout: WORKER_STEP_TIMEOUT,
    });
    await expect(value).not.toHaveText(before ?? '', { timeout: WORKER_STEP_TIMEOUT });
    await trainee.page.getByRole('button', { name: 'Close this lab' }).click();
    await expect(trainee.readOnly).toContainText('Its owner closed this private lab.', {
      timeout: WORKER_STEP_TIMEOUT,
    });
  } finally {
    await context.close();
  }
});
