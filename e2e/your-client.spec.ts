import type { Page } from '@playwright/test';
import { pythonWithPsycopg } from '../lib/testing/python';
import { type RemoteWorkerRun, startRemoteWorker } from '../lib/testing/remote-worker-process';
import { seriousViolations } from './axe';
import { expect, test } from './fixtures';
import { WORKER_STEP_TIMEOUT } from './pages/lab-page';
import { SessionPage } from './pages/session-page';

/*
 * Your client (issue 36): a private lab waits for a person's own program, shows the command that runs
 * it as a lane, and says in plain words what the client did wrong, from what the lab recorded: a
 * client that counts its own tokens is named for it, the reference client in Python for nothing. The
 * class wall then lists both runs, and opens each on /replay.
 */

test('a private lab waits for your client, and names what it does wrong', async ({ browser }) => {
  test.setTimeout(180_000);
  const python = pythonWithPsycopg() ?? 'python3';
  const context = await browser.newContext();
  const runs: RemoteWorkerRun[] = [];
  try {
    const trainee = new SessionPage(await context.newPage());
    const lab = await trainee.openPrivateLab('No fencing');
    const page = lab.page;
    const panel = page.getByTestId('your-client');
    await expect(panel.getByRole('status')).toHaveText('Waiting for your client…');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByText('Run a worker from your own machine in this lab').click();
    await page.getByRole('button', { name: 'Get my worker line' }).click();
    const exec = page.getByTestId('worker-line-exec-command');
    await expect(exec).toContainText(/ --name A --exec "python3 my_client\.py"$/);
    const command = (await exec.textContent()) ?? '';
    const db = /--db (\S+)/.exec(command)?.[1] ?? '';
    const key = /--join-key (\S+)/.exec(command)?.[1] ?? '';
    const lane = (name: string, program: string) => {
      const run = startRemoteWorker([
        '--db',
        db,
        '--lab',
        lab.lab,
        '--join-key',
        key,
        '--name',
        name,
        '--exec',
        program,
      ]);
      runs.push(run);
      return run;
    };
    lane('A', `${python} lib/scenario/faulty-clients/faulty.py own-counter`);
    await expect(panel.getByTestId('your-client-A')).toContainText(/A runs python3 faulty\.py\./, {
      timeout: WORKER_STEP_TIMEOUT,
    });
    await expect(panel.getByTestId('your-client-A')).toContainText(
      /A wrote with token \d+, which the lease service never granted it \(it was granted \d+/,
      { timeout: WORKER_STEP_TIMEOUT },
    );
    // B next (A first took the lease, which it never renews: B takes it once it runs out).
    lane('B', `${python} clients/python/worker.py`);
    await expect(panel.getByTestId('your-client-B')).toContainText('B runs python3 worker.py.', {
      timeout: WORKER_STEP_TIMEOUT,
    });
    // Once B has written (the row's lane shows its value), it still did nothing wrong.
    await expect(page.getByRole('button', { name: /^(Violation: )?The row holds "B-\d+"/ }).first()).toBeVisible({
      timeout: WORKER_STEP_TIMEOUT,
    });
    await expect(panel.getByTestId('your-client-B')).toContainText('No fault seen so far');
    expect(await seriousViolations(page)).toEqual([]);

    // The class wall lists both clients (issue 36, item 6): who, which language, how each ended, what
    // it did wrong, and its run on /replay; a trainee's wall holds their own. Live: opened while both
    // run, each row then changes to how it ended without a reload.
    const wall = await context.newPage();
    await wall.goto('/wall');
    const clients = wall.getByTestId('wall-client');
    await expect(clients).toHaveCount(2, { timeout: WORKER_STEP_TIMEOUT });
    const [b, a] = [clients.nth(0), clients.nth(1)];
    await expect(a).toContainText('▶ running');
    await expect(b).toContainText('▶ running');
    for (const run of runs.splice(0)) await run.stop();
    await expect(a).toContainText('lane A');
    await expect(a).toContainText('python3 faulty.py');
    await expect(a).toContainText('Python');
    await expect(a).toContainText('its runner was ended by SIGTERM · ✗ wrote with a token it was never granted', {
      timeout: WORKER_STEP_TIMEOUT,
    });
    await expect(b).toContainText('lane B');
    await expect(b).toContainText('python3 worker.py');
    await expect(b).toContainText('✓ no fault seen', { timeout: WORKER_STEP_TIMEOUT });
    expect(await seriousViolations(wall)).toEqual([]);
    await a.getByRole('link', { name: /^Open run \d+/ }).click();
    await expect(wall.getByTestId('client-run-words')).toContainText('✗ wrote with a token it was never granted');
    await expect(wall.getByText(/No client run/)).toHaveCount(0);
    // Its history, replayed: A's write with the token it made up is drawn.
    await expect(wall.getByRole('button', { name: /^(Violation: )?The row holds/ }).first()).toBeVisible();
    await closeTheLab(page);
  } finally {
    for (const run of runs) await run.stop();
    await context.close();
  }
});

/*
 * The pause story in one press (issue 36): with the Python reference client run by hand as A, the
 * panel's button freezes A before its next write, lets our B take over and write, and resumes A; its
 * status line follows the story in words, and the lab shows its end: in the fenced lab A's late write
 * refused and the row keeping B's value, without fencing the lost update. A reset mid-story is said.
 */

/** A private lab of `title` with the Python reference client run as A from its worker line; the panel's button and status. */
async function labWithClientAsA(page: Page, title: string, runs: RemoteWorkerRun[]) {
  const lab = await new SessionPage(page).openPrivateLab(title);
  const panel = page.getByTestId('your-client');
  const play = panel.getByRole('button', { name: 'Play the pause story with your client as A' });
  // Nothing to play before A runs.
  await expect(panel.getByRole('status')).toHaveText('Waiting for your client…');
  await expect(play).toHaveCount(0);

  await page.getByText('Run a worker from your own machine in this lab').click();
  await page.getByRole('button', { name: 'Get my worker line' }).click();
  const command = (await page.getByTestId('worker-line-exec-command').textContent()) ?? '';
  const db = /--db (\S+)/.exec(command)?.[1] ?? '';
  const key = /--join-key (\S+)/.exec(command)?.[1] ?? '';
  const python = pythonWithPsycopg() ?? 'python3';
  const args = ['--db', db, '--lab', lab.lab, '--join-key', key, '--name', 'A'];
  runs.push(startRemoteWorker([...args, '--exec', `${python} clients/python/worker.py`]));
  await expect(panel.getByTestId('your-client-A')).toContainText('A runs python3 worker.py.', {
    timeout: WORKER_STEP_TIMEOUT,
  });
  await expect(play).toBeEnabled({ timeout: WORKER_STEP_TIMEOUT });
  expect(await seriousViolations(page)).toEqual([]);

  // Pressed from the keyboard: the story's words come in a status line a screen reader reads out.
  await play.focus();
  await page.keyboard.press('Enter');
  const story = panel.getByTestId('your-client-story').getByRole('status');
  await expect(story).toHaveText(/^A is frozen/, { timeout: 60_000 });
  await expect(play).toBeDisabled();
  return { lab, play, story };
}

/** Closes the test's lab from its page: its workers stop, and its worker line is taken back (8 an address). */
async function closeTheLab(page: Page) {
  await page.getByRole('button', { name: 'Close this lab' }).click();
  await expect(new SessionPage(page).readOnly).toContainText('Its owner closed this private lab.', {
    timeout: WORKER_STEP_TIMEOUT,
  });
  await expect(page.getByTestId('your-client-story')).toHaveCount(0);
}

for (const { title, fenced } of [
  { title: 'Fenced', fenced: true },
  { title: 'No fencing', fenced: false },
]) {
  test(`${title}: one press plays the pause story with your client as A`, async ({ browser }) => {
    test.setTimeout(180_000);
    const context = await browser.newContext();
    const runs: RemoteWorkerRun[] = [];
    try {
      const page = await context.newPage();
      const { lab, play, story } = await labWithClientAsA(page, title, runs);
      if (fenced) {
        await expect(story).toHaveText(
          /^A resumed: its late write with token \d+ was refused as stale, and the row keeps B's value\.$/,
          { timeout: 60_000 },
        );
        // The row keeps B's value (its table, and the database lane's last mark), and the checker finds nothing.
        await expect(lab.row).toContainText(/^\d+B-\d+/);
        await expect(
          lab.markTitled(/^The row holds "B-\d+" with token \d+\. written by B .*still there now/),
        ).toHaveCount(1);
        await expect(lab.checkerOk).toBeVisible();
      } else {
        await expect(story).toHaveText(
          /^A resumed: its late write with token \d+ was accepted: B's value was overwritten, a lost update\.$/,
          { timeout: 60_000 },
        );
        // A's late write overwrote B's: the row held B's value until A wrote, and the checker names the lost update.
        await expect(
          lab.markTitled(/^(Violation: )?The row holds "B-\d+" with token \d+\. written by B .*until A wrote "A-\d+"/),
        ).toHaveCount(1);
        await expect(lab.checkerViolations).toBeVisible();
        await expect(
          page
            .getByRole('listitem')
            .filter({ hasText: /^lost update: B's value "B-\d+" \(token \d+\) overwritten by A/ }),
        ).toHaveCount(1);
      }
      await expect(play).toBeEnabled();
      expect(await seriousViolations(page)).toEqual([]);
      await closeTheLab(page);
    } finally {
      for (const run of runs) await run.stop();
      await context.close();
    }
  });
}

test('a reset mid-story: the panel says the story stopped', async ({ browser }) => {
  test.setTimeout(120_000);
  const context = await browser.newContext();
  const runs: RemoteWorkerRun[] = [];
  try {
    const page = await context.newPage();
    const { lab, story } = await labWithClientAsA(page, 'No fencing', runs);
    await lab.resetLab.click();
    await expect(story).toHaveText('The story stopped: the lab was reset while the story played.', {
      timeout: WORKER_STEP_TIMEOUT,
    });
    await closeTheLab(page);
  } finally {
    for (const run of runs) await run.stop();
    await context.close();
  }
});
