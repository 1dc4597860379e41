import { seriousViolations } from './axe';
import { expect, test } from './fixtures';
import { WORKER_STEP_TIMEOUT } from './pages/lab-page';
import { PresenterPage } from './pages/presenter-page';
import { stepNumberOf } from './steps';

const timeout = WORKER_STEP_TIMEOUT;

test('the trainer presents with single keys: → runs the next step, P pauses and resumes the selected worker, Space plays and pauses', async ({
  page,
  lab,
}) => {
  test.setTimeout(120_000);
  const freePlay = lab('fenced'); // the fixture resets the lab when the test ends
  const presenter = new PresenterPage(page, 'fenced');

  // A session is under way: Z runs in free play.
  await freePlay.gotoFreePlay();
  await freePlay.reset();
  await freePlay.startWorker('Z', 3);

  // Arriving changes nothing (Z runs on); → runs the first step for real: the lab is reset.
  await presenter.gotoPresenter();
  await expect(presenter.driveStatus).toHaveText('Presenting: you drive');
  await expect(presenter.narration).toContainText('Ready when you are: press → to begin.');
  await expect(presenter.stripPhase('Z')).toHaveText(/holds the lease/, { timeout });
  await page.keyboard.press('ArrowRight');
  await presenter.expectStep('setup', 'The lab has been reset: no workers, no history.');
  await expect(presenter.noHolderYet).toBeVisible();
  await expect(presenter.workerStrip).toContainText('none running');

  // → : the next step runs on the real lab: A starts, its lane appears with its first accepted write.
  await page.keyboard.press('ArrowRight');
  await presenter.expectStep(
    'a-writes',
    /^A, a real process, took the lease with token \d+ and wrote "A-1" with it: accepted\./,
  );
  await expect(presenter.noHolderYet).toBeHidden();
  await expect(presenter.writeMark('A', 'accepted', { value: 'A-1' })).toBeVisible({ timeout });
  await expect(presenter.stripPhase('A')).toHaveText(/holds the lease · token \d+/, { timeout });

  // 1 selects A; P pauses it until resumed: the strip and the timeline show it frozen.
  await page.keyboard.press('1');
  await expect(presenter.stripWorker('A')).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press('p');
  await expect(presenter.commandNotice).toHaveText('✓ A is frozen until resumed.', { timeout });
  await expect(presenter.stripPhase('A')).toHaveText(/^‖ paused \(frozen\)/, { timeout });
  await expect(presenter.markTitled(/^A frozen\. .*still frozen/)).toBeVisible({ timeout });

  // P again resumes it; the freeze on the timeline is closed.
  await page.keyboard.press('p');
  await expect(presenter.commandNotice).toHaveText('✓ A resumed.', { timeout });
  await expect(presenter.stripPhase('A')).not.toHaveText(/paused/, { timeout });
  await expect(presenter.markTitled(/^A frozen\. from \S+ to /)).toBeVisible({ timeout });

  // P, then R: R resumes as well.
  await page.keyboard.press('p');
  await expect(presenter.stripPhase('A')).toHaveText(/^‖ paused \(frozen\)/, { timeout });
  await page.keyboard.press('r');
  await expect(presenter.stripPhase('A')).not.toHaveText(/paused/, { timeout });
  await expect(presenter.markTitled(/^A frozen\. from \S+ to /)).toHaveCount(2, { timeout });

  // Space plays the walkthrough, and Space again pauses it.
  await expect(presenter.autoplayStatus).toHaveText('‖ paused');
  await page.keyboard.press('Space');
  await expect(presenter.autoplayStatus).toHaveText('▶ playing');
  await expect(presenter.autoplay).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press('Space');
  await expect(presenter.autoplayStatus).toHaveText('‖ paused');
  await expect(presenter.autoplay).toHaveAttribute('aria-pressed', 'false');

  // ? shows the keys; Esc closes the help first, then leaves presenter mode for the lab's page.
  await page.keyboard.press('?');
  await expect(presenter.keysHelp).toContainText('pause the selected worker until resumed');
  await page.keyboard.press('Escape');
  await expect(presenter.keysHelp).toBeHidden();
  await page.keyboard.press('Escape');
  await expect(page).toHaveURL(/\/labs\/fenced$/, { timeout });
});

test("a watcher's presenter page follows the trainer's steps, and its driving keys are disabled", async ({
  page,
  browser,
  lab,
}) => {
  test.setTimeout(120_000);
  const trainer = new PresenterPage(page, 'fenced');
  // Z runs in free play: the trainer's → begins the walkthrough with its reset.
  await lab('fenced').gotoFreePlay();
  await lab('fenced').startWorker('Z', 3);
  await trainer.gotoPresenter();
  await expect(trainer.narration).toContainText('Ready when you are');
  await page.keyboard.press('ArrowRight');
  await trainer.expectStep('setup', 'The lab has been reset');

  const context = await browser.newContext();
  try {
    const watcher = new PresenterPage(await context.newPage(), 'fenced');
    await watcher.gotoPresenter();
    await expect(watcher.driveStatus).toHaveText('Watching');
    await expect(watcher.readOnly).toContainText('The keys → ← Space P W R Q are disabled here.');
    await watcher.expectStep('setup', 'The lab has been reset');
    await expect(watcher.next).toHaveCount(0);
    await expect(watcher.autoplay).toHaveCount(0);

    // The watcher's keys that drive say so, and drive nothing.
    await watcher.page.keyboard.press('ArrowRight');
    await expect(watcher.readOnly.getByRole('status')).toHaveText(
      "→ is the trainer's key: you are watching, so it does nothing here.",
    );
    await watcher.page.keyboard.press('p');
    await expect(watcher.readOnly.getByRole('status')).toHaveText(/^P is the trainer's key/);
    await expect(watcher.workerStrip).toContainText('none running');
    await watcher.expectStep('setup', 'The lab has been reset');

    // The trainer's → reaches the watcher: the same step, the same tokens.
    await page.keyboard.press('ArrowRight');
    await trainer.expectStep(
      'a-writes',
      /^A, a real process, took the lease with token \d+ and wrote "A-1" with it: accepted\./,
    );
    const narration = await trainer.narration.textContent();
    const [tokens] = narration?.match(/^A, a real process, took the lease with token \d+/) ?? [];
    await watcher.expectStep('a-writes', `${tokens} and wrote "A-1" with it: accepted.`);
    await expect(watcher.stripPhase('A')).toHaveText(/holds the lease/, { timeout });

    expect(await seriousViolations(watcher.page)).toEqual([]);
  } finally {
    await context.close();
  }
});

test('presenter mode, with a worker running and the keys shown, has no serious or critical accessibility violation', async ({
  page,
  lab,
}) => {
  test.setTimeout(90_000);
  lab('fenced');
  const presenter = new PresenterPage(page, 'fenced');
  // The deep link shows A's first write and offers to run the steps up to it; the offer runs them for real.
  const writes = stepNumberOf('fenced', 'a-writes');
  await page.goto(`/labs/fenced/present?step=${writes}`);
  await expect(presenter.runSteps).toHaveText(
    new RegExp(`^Run steps? (${stepNumberOf('fenced', 'setup')} to )?${writes}`),
  );
  await presenter.runSteps.click();
  await presenter.expectStep(
    'a-writes',
    /^A, a real process, took the lease with token \d+ and wrote "A-1" with it: accepted\./,
  );
  await expect(presenter.writeMark('A', 'accepted', { value: 'A-1' })).toBeVisible({ timeout });
  await presenter.keysButton.click();
  await expect(presenter.keysHelp).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);

  // The toggle says what it does: it switches to the dark theme, then offers the light one back.
  await page.getByRole('button', { name: 'Switch to dark theme' }).click();
  await expect(page.getByRole('button', { name: 'Switch to light theme' })).toBeVisible();
  await expect(page.locator('html')).toHaveClass(/\bdark\b/);
  expect(await seriousViolations(page)).toEqual([]);
});

test('the lab page, the walkthrough and the home page link to presenter mode', async ({ page }) => {
  for (const from of ['/', '/labs/fenced', '/labs/no-fencing']) {
    await page.goto(from);
    const link = page.getByRole('link', { name: 'Presenter mode' });
    await expect(link).toHaveAttribute(
      'href',
      from === '/labs/no-fencing' ? '/labs/no-fencing/present' : '/labs/fenced/present',
    );
  }
  // Visiting the walkthrough as the trainer changes nothing: its link is there to follow.
  await page.goto('/labs/fenced/walkthrough');
  await expect(page.getByRole('link', { name: 'Presenter mode' })).toHaveAttribute('href', '/labs/fenced/present');
});
