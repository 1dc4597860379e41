import { expect, test } from './fixtures';
import { WORKER_STEP_TIMEOUT } from './pages/lab-page';
import { PresenterPage } from './pages/presenter-page';

/*
 * From the projector, the lab page's W (issue 36's Done-when: a trainee's client "is frozen by the
 * trainer from the projector"): presenter mode's W freezes the selected worker before its next write,
 * after its lease check, until resumed; another takes over and writes; R wakes the first, whose write
 * goes out with its old token and is refused. The same command as the lab page's "Freeze before its
 * next write". Free play's workers X and Y, not the walkthrough's A and B: the strip then shows the
 * lab live, not as at a step of the story.
 */

const timeout = WORKER_STEP_TIMEOUT;

test('the trainer presses W on the presenter: the selected worker freezes before its next write, and R wakes it to a refused write', async ({
  page,
  lab,
}) => {
  test.setTimeout(120_000);
  const fenced = lab('fenced'); // the fixture resets the lab when the test ends
  await fenced.gotoFreePlay();
  await fenced.reset();
  await fenced.startWorker('X', 2);
  const tokenX = await fenced.waitForLeaseHolder('X');
  await fenced.startWorker('Y', 3);

  const presenter = new PresenterPage(page, 'fenced');
  await presenter.gotoPresenter();
  await expect(presenter.driveStatus).toHaveText('Presenting: you drive');
  // The keys' help names W among the trainer's keys.
  await page.keyboard.press('?');
  await expect(presenter.keysHelp).toContainText(
    'freeze the selected worker before its next write (after its lease check), until resumed',
  );
  await page.keyboard.press('Escape');
  await expect(presenter.keysHelp).toBeHidden();

  await expect(presenter.stripPhase('X')).toHaveText(/holds the lease · token \d+/, { timeout });
  await page.keyboard.press('1');
  await expect(presenter.stripWorker('X')).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press('w');
  await expect(presenter.commandNotice).toHaveText('✓ X will freeze between its lease check and its next write.', {
    timeout,
  });
  await expect(presenter.stripPhase('X')).toHaveText(/^‖ paused \(frozen\)/, { timeout });
  await expect(presenter.markTitled('X frozen in its critical window')).toBeVisible({ timeout });

  // Frozen until resumed: X's 2 s lease runs out, Y takes over with a newer token and writes.
  await expect(presenter.stripPhase('Y')).toHaveText(/holds the lease · token \d+/, { timeout });
  const tokenY = Number(/token (\d+)/.exec((await presenter.stripPhase('Y').textContent()) ?? '')?.[1]);
  expect(tokenY).toBeGreaterThan(tokenX);
  await expect(presenter.writeMark('Y', 'accepted', { token: tokenY }).first()).toBeVisible({ timeout });
  await expect(presenter.stripPhase('X')).toHaveText(/^‖ paused \(frozen\)/);

  // W again on a frozen worker does not stack a second freeze: it says how to wake it.
  await page.keyboard.press('w');
  await expect(page.getByText('X is frozen already: R resumes it')).toBeVisible({ timeout });

  // R wakes X: the write it held back goes out with its old token, and the row refuses it.
  await page.keyboard.press('r');
  await expect(presenter.commandNotice).toHaveText('✓ X resumed.', { timeout });
  const rejected = presenter.writeMark('X', 'rejected', { token: tokenX });
  await expect(rejected).toHaveCount(1, { timeout });
  await expect(rejected).toHaveAccessibleName(new RegExp(`the row holds token ${tokenY}$`));
  // The row keeps Y's value (the tables open on request, below the timeline).
  await page.getByText('The row and the lease, as tables').click();
  await expect(presenter.rowValue()).toHaveText(/^Y-\d+$/);
});
