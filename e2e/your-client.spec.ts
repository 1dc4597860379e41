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
  } finally {
    for (const run of runs) await run.stop();
    await context.close();
  }
});
