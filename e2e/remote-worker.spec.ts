import { startRemoteWorker } from '../lib/testing/remote-worker-process';
import { expect, test } from './fixtures';
import { WORKER_STEP_TIMEOUT } from './pages/lab-page';
import { waitForBeatPastFreeze } from './worker-beat';
import { takeBackWorkerLine, workerLineFromPage } from './worker-line';

/** REMOTE_HEARTBEAT_FRESH_MS (5 s, db/remote-workers.ts, server-only) and a second: a worker silent so long is gone. */
const PAST_THE_HEARTBEAT_WINDOW_MS = 6_000;

test('a remote worker started from a shell appears in the lab and obeys a pause from it', async ({ lab }) => {
  test.setTimeout(120_000);
  const fenced = lab('fenced');
  await fenced.gotoFreePlay();
  await fenced.reset();
  // A shared lab takes remote workers only once its trainer lets it (off by default).
  await expect(fenced.page.getByText('Remote workers may join this lab')).toBeVisible();
  await fenced.page.getByTestId('remote-workers-open').check();
  await expect(fenced.page.getByTestId('remote-workers-open')).toBeChecked();
  await expect(fenced.page.getByTestId('remote-workers-open')).toBeEnabled(); // the server has it

  // A person's own worker line, from the page: a role and password of their own, in the command to paste.
  const lineUrl = await workerLineFromPage(fenced.page, 'fenced');
  // As someone on another machine would start it: only that line in common with the app.
  const far = startRemoteWorker(['--db', lineUrl, '--lab', 'fenced', '--name', 'Far']);
  try {
    await far.pid();
    await expect(fenced.worker('Far')).toHaveAccessibleName(/^Far remote holds the lease · token \d+$/, {
      timeout: WORKER_STEP_TIMEOUT,
    });
    await expect(fenced.writeMark('Far', 'accepted').first()).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });

    await fenced.worker('Far').check();
    await expect(fenced.restart).toBeDisabled(); // a remote worker is restarted on its own machine
    await fenced.pauseUntilResumed.click();
    await expect(fenced.notice).toHaveText(/Far is frozen until resumed\./, { timeout: WORKER_STEP_TIMEOUT });
    await expect(fenced.worker('Far')).toHaveAccessibleName(/^Far remote frozen/, { timeout: WORKER_STEP_TIMEOUT });
    await expect(fenced.markTitled('Far frozen')).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });
    // Still there and still frozen well past the heartbeat window: its listener thread keeps beating.
    // Once its own beat is recorded past the window, the page must still show it frozen, not gone.
    await waitForBeatPastFreeze('fenced', 'Far', PAST_THE_HEARTBEAT_WINDOW_MS);
    await expect(fenced.worker('Far')).toHaveAccessibleName(/^Far remote frozen/);

    await fenced.resume.click();
    await expect(fenced.notice).toHaveText(/Far resumed\./, { timeout: WORKER_STEP_TIMEOUT });
    await expect(fenced.worker('Far')).toHaveAccessibleName(/^Far remote (holds the lease|waiting for the lease)/, {
      timeout: WORKER_STEP_TIMEOUT,
    });
    await expect(fenced.markTitled(/^Far frozen.* to .*\(\d/)).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });
  } finally {
    // Each clean-up step whatever failed before it.
    try {
      await far.stop();
      await takeBackWorkerLine(new URL(lineUrl).username);
    } finally {
      await fenced.page.getByTestId('remote-workers-open').uncheck();
    }
  }
});
