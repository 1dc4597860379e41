import type { Page } from '@playwright/test';
import { E2E_TRAINER_KEY } from '../playwright.config';
import { expect, test } from './fixtures';
import { LabPage, WORKER_STEP_TIMEOUT } from './pages/lab-page';
import { SessionPage } from './pages/session-page';

/*
 * A training session: the trainer (the `page` fixture, which has entered the trainer key) drives a
 * shared lab; a trainee's browser, with no key, watches the same run live and cannot drive it.
 * A trainee's private lab is theirs alone: nobody else sees it, and the shared labs never feel it.
 */

const VIEWER_LAG_MS = 1_000;

async function markNamesOf(lab: LabPage): Promise<string[]> {
  return lab.markNames(lab.writeMarks);
}

test('the trainer drives, a viewer sees the same events within a second and cannot drive', async ({ lab, browser }) => {
  test.setTimeout(120_000);
  const trainer = lab('fenced');
  await trainer.gotoFreePlay();
  await trainer.reset();
  await expect(new SessionPage(trainer.page).driveStatus).toHaveText('Trainer: you drive');

  const viewerContext = await browser.newContext();
  try {
    const viewerPage: Page = await viewerContext.newPage();
    const viewer = new LabPage(viewerPage, 'fenced');
    const session = new SessionPage(viewerPage);
    await viewer.gotoFreePlay();
    await expect(session.driveStatus).toHaveText('Watching');
    await expect(session.readOnly).toBeVisible();
    await expect(viewer.controls).toHaveCount(0);
    // The trainer sees the room: two browsers on the lab now.
    await expect(trainer.page.getByTestId('room-status')).toHaveText(/^● Live · 2 browsers watch$/, {
      timeout: WORKER_STEP_TIMEOUT,
    });

    // The trainer starts a worker; each write the trainer sees, the viewer sees within a second.
    await trainer.startWorker('A', 3);
    for (const value of ['A-1', 'A-2', 'A-3']) {
      const seenByTrainer = trainer.writeMark('A', 'accepted', { value });
      await expect(seenByTrainer).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });
      await expect(viewer.writeMark('A', 'accepted', { value })).toBeVisible({ timeout: VIEWER_LAG_MS });
    }
    await expect(viewer.leaseHolder()).toHaveText('A', { timeout: VIEWER_LAG_MS * 2 });

    // The trainer pauses A: the viewer sees the freeze.
    await trainer.pauseUntilResumed.click();
    await expect(trainer.markTitled(/^A frozen/)).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });
    await expect(viewer.markTitled(/^A frozen/)).toBeVisible({ timeout: VIEWER_LAG_MS });

    // A wrong key is refused with a clear message, and changes nothing.
    await session.trainerKey.fill('not-the-key');
    await session.unlock.click();
    await expect(session.keyError).toHaveText('that is not the trainer key');
    await expect(session.driveStatus).toHaveText('Watching');

    // Both timelines hold the same writes.
    await trainer.resume.click();
    await expect(trainer.notice).toHaveText(/A resumed\./, { timeout: WORKER_STEP_TIMEOUT });
    await expect(async () => {
      expect(await markNamesOf(viewer)).toEqual(await markNamesOf(trainer));
    }).toPass({ timeout: WORKER_STEP_TIMEOUT });

    // With the right key the viewer's browser drives too.
    await session.trainerKey.fill(E2E_TRAINER_KEY);
    await session.unlock.click();
    await expect(session.driveStatus).toHaveText('Trainer: you drive', { timeout: WORKER_STEP_TIMEOUT });
    await expect(viewer.controls).toBeVisible();
  } finally {
    await viewerContext.close();
  }
});

test('the server refuses a control action from a browser without the trainer key', async ({ lab }) => {
  test.setTimeout(60_000);
  const fenced = lab('fenced');
  await fenced.gotoFreePlay();
  await fenced.reset();
  // The controls are on screen, but the browser no longer has the key: the action reaches the
  // server with no trainer cookie, and the server says no.
  await fenced.page.context().clearCookies();
  await fenced.workerName.fill('Mallory');
  await fenced.startWorkerButton.click();
  await expect(fenced.error).toContainText('only the trainer drives the shared labs', {
    timeout: WORKER_STEP_TIMEOUT,
  });
  await fenced.page.reload();
  await expect(new SessionPage(fenced.page).driveStatus).toHaveText('Watching');
  await expect(fenced.markTitled(/^Mallory/)).toHaveCount(0);
  // The trainer's link gives the controls back (and the fixture's clean-up needs them).
  await fenced.page.goto(`/unlock?key=${encodeURIComponent(E2E_TRAINER_KEY)}`);
});

test('a private lab is invisible to, and unaffected by, the shared lab and its trainer', async ({ lab, browser }) => {
  test.setTimeout(150_000);
  const shared = lab('fenced');
  await shared.gotoFreePlay();
  await shared.reset();

  const traineeContext = await browser.newContext();
  try {
    const trainee = new SessionPage(await traineeContext.newPage());
    const mine = await trainee.openPrivateLab('Fenced');
    await expect(mine.rowValue()).toHaveText('initial', { timeout: WORKER_STEP_TIMEOUT });
    await mine.startWorker('Zed', 3);
    await expect(mine.writeMark('Zed', 'accepted', { value: 'Zed-1' })).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });

    // The trainer's browser cannot open it: to anyone else it does not exist.
    const response = await shared.page.goto(`/labs/${mine.lab}`);
    expect(response?.status()).toBe(404);
    const feed = await shared.page.request.get(`/api/labs/${mine.lab}/events`);
    expect(feed.status()).toBe(404);

    // The shared lab runs its own worker meanwhile; neither lab sees the other's.
    await shared.gotoFreePlay();
    await shared.startWorker('A', 3);
    await expect(shared.writeMark('A', 'accepted', { value: 'A-1' })).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });
    await expect(shared.markTitled(/^Zed/)).toHaveCount(0);
    await expect(shared.rowValue()).toHaveText(/^A-\d+$/);
    await expect(mine.markTitled(/^A('s| took| holds)/)).toHaveCount(0);
    await expect(mine.rowValue()).toHaveText(/^Zed-\d+$/);
    await expect(mine.leaseHolder()).toHaveText('Zed');

    // The home page's tables, which everyone sees, show nothing of the private lab.
    await shared.page.goto('/');
    await expect(shared.page.getByRole('cell', { name: /^Zed-\d+$/ })).toHaveCount(0);
    await expect(shared.page.getByRole('cell', { name: `lab/${mine.lab}` })).toHaveCount(0);
    // Its owner finds it listed as theirs.
    await trainee.page.goto('/');
    await expect(trainee.page.getByRole('list', { name: 'Your private labs' }).getByRole('link')).toContainText([
      mine.lab,
    ]);
    // Its owner closes it: the workers stop, the history stays to replay, the controls go.
    await mine.gotoFreePlay();
    await trainee.page.getByRole('button', { name: 'Close this lab' }).click();
    await expect(trainee.readOnly).toContainText('Its owner closed this private lab.', {
      timeout: WORKER_STEP_TIMEOUT,
    });
    await expect(mine.controls).toHaveCount(0);
    await expect(mine.writeMark('Zed', 'accepted', { value: 'Zed-1' })).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });
    await expect(mine.markTitled('Zed stopped')).toHaveCount(1, { timeout: WORKER_STEP_TIMEOUT });
  } finally {
    await traineeContext.close();
  }
});
