import { expect, test } from './fixtures';
import { WORKER_STEP_TIMEOUT } from './pages/lab-page';
import { SessionPage } from './pages/session-page';
import { lastStepOf, stepNumberOf, stepOf } from './steps';

/*
 * Autoplay in a trainee's private fenced walkthrough: its workers write every second or so, and each
 * recorded write used to restart autoplay's reading timer before it fired (85 s stalled at A's first write).
 */

test('autoplay reaches the last step of a private fenced walkthrough while its workers write', async ({ browser }) => {
  test.setTimeout(240_000);
  const context = await browser.newContext();
  try {
    const trainee = new SessionPage(await context.newPage());
    const lab = await trainee.openPrivateLab('Fenced');
    await lab.gotoWalkthrough();
    await expect(lab.autoplay).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });
    await lab.autoplay.click();
    await expect(lab.autoplay).toHaveAttribute('aria-pressed', 'true');
    // A's first write: autoplay must move on from that step while A goes on writing.
    await expect(lab.stepCounter).toHaveText(stepOf('fenced', stepNumberOf('fenced', 'a-writes') + 1), {
      timeout: 60_000,
    });
    await expect(lab.stepCounter).toHaveText(lastStepOf('fenced'), { timeout: 180_000 });
    // At the last step, done, autoplay stops: it does not go on saying it plays.
    await expect(lab.autoplay).toHaveAttribute('aria-pressed', 'false', { timeout: 30_000 });
    await expect(lab.writeMark('B', 'accepted').first()).toBeVisible();
  } finally {
    await context.close();
  }
});
