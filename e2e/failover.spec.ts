import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { seriousViolations } from './axe';
import { expect, test } from './fixtures';

/*
 * The failover lab walked through to the end in each mode, on a real primary and standby: what each
 * server holds, the history and the checker's verdict as the page shows them.
 */

const STEP_TIMEOUT = 30_000;

async function runWalkthrough(page: Page, steps: number) {
  for (let n = 1; n <= steps; n++) {
    const run = page.getByRole('button', { name: `Run step ${n}`, exact: true });
    await expect(run).toBeEnabled({ timeout: STEP_TIMEOUT });
    await run.click();
    await expect(page.getByRole('heading', { name: new RegExp(`^Step ${n + 1}:`) })).toBeVisible({
      timeout: STEP_TIMEOUT,
    });
  }
}

const server = (page: Page, role: string) => page.getByRole('row', { name: new RegExp(`^${role}\\b`) });

test('asynchronous replication: B’s acknowledged write is gone after the failover, A’s late write accepted, named', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.goto('/labs/failover');
  await page.getByRole('button', { name: 'Reset the lab (stops the pair)' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Reset the lab: done' })).toBeVisible({
    timeout: STEP_TIMEOUT,
  });
  await runWalkthrough(page, 10);
  await expect(page.getByRole('heading', { name: 'Step 11: The verdict' })).toBeVisible();

  const history = page.getByRole('list', { name: 'Failover history' });
  await expect(history).toContainText(/B writes "B-\d+" with token (\d+) -> accepted \(by the primary\)/);
  await expect(history).toContainText(
    /the standby is promoted: its row holds "A-\d+" with token \d+, its lease is A's/,
  );
  await expect(history).toContainText(/A writes "A-\d+" with token \d+ -> accepted \(by the promoted standby\)/);
  await expect(server(page, 'promoted standby')).toContainText(/"A-\d+"/);
  await expect(server(page, 'primary')).toContainText('(down)');
  const violations = page.getByRole('list', { name: 'Violations' });
  await expect(violations).toContainText('acknowledged-write-lost');
  await expect(violations).toContainText('stale-write-accepted');

  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export the history as JSON' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^fencing-lab-failover-.*\.json$/);
  const exported = JSON.parse(await readFile((await file.path()) as string, 'utf8'));
  expect(exported.mode).toBe('async');
  expect(exported.steps.map((step: { kind: string }) => step.kind)).toContain('standby_promoted');
  expect(exported.violations.map((v: { kind: string }) => v.kind)).toContain('stale-write-accepted');
});

test('synchronous replication: B’s commit waits on the cut wire, nothing acknowledged is lost, A is rejected', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.goto('/labs/failover?mode=sync');
  await runWalkthrough(page, 4);
  await page.getByRole('button', { name: 'Run step 5', exact: true }).click();
  await expect(
    page.getByRole('status').filter({ hasText: 'waiting (the COMMIT is not acknowledged yet)' }),
  ).toBeVisible({
    timeout: STEP_TIMEOUT,
  });
  await expect(page.getByRole('list', { name: 'Failover history' })).toContainText("B's grant waits");
  for (let n = 6; n <= 11; n++) {
    const run = page.getByRole('button', { name: `Run step ${n}`, exact: true });
    await expect(run).toBeEnabled({ timeout: STEP_TIMEOUT });
    await run.click();
    await expect(page.getByRole('heading', { name: new RegExp(`^Step ${n + 1}:`) })).toBeVisible({
      timeout: STEP_TIMEOUT,
    });
  }
  const history = page.getByRole('list', { name: 'Failover history' });
  await expect(history).toContainText(/the standby is promoted: its row holds "B-\d+"/);
  await expect(history).toContainText(
    /A writes "A-\d+" with token \d+ -> rejected \(by the promoted standby: row holds token \d+\)/,
  );
  await expect(server(page, 'promoted standby')).toContainText(/"B-\d+"/);
  await expect(page.getByText(/^No violation in \d+ steps\.$/)).toBeVisible();
});

test('a watcher sees the failover lab read-only; the page has no serious accessibility violation', async ({
  page,
  browser,
  baseURL,
}) => {
  await page.goto('/labs/failover');
  await expect(page.getByRole('heading', { name: 'Free play' })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);

  const watcherContext = await browser.newContext({ ...(baseURL ? { baseURL } : {}) });
  try {
    const watcher = await watcherContext.newPage();
    await watcher.goto('/labs/failover?mode=sync&step=5');
    await expect(watcher.getByText('Watching: only the trainer drives the failover lab.')).toBeVisible();
    await expect(
      watcher.getByRole('heading', { name: /^Step 5: A’s lease runs out; B takes the lock$/ }),
    ).toBeVisible();
    await expect(watcher.getByRole('button', { name: /^Run step/ })).toHaveCount(0);
    await expect(watcher.getByRole('button', { name: 'Kill the primary (SIGKILL)' })).toHaveCount(0);
    expect(await seriousViolations(watcher)).toEqual([]);
  } finally {
    await watcherContext.close();
  }
});

test('a deep link shows its step and runs nothing; its button runs the steps up to it', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/labs/failover');
  await page.getByRole('button', { name: 'Reset the lab (stops the pair)' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Reset the lab: done' })).toBeVisible({
    timeout: STEP_TIMEOUT,
  });

  await page.goto('/labs/failover?step=4');
  await expect(page.getByRole('heading', { name: 'Step 4: Replication is cut' })).toBeVisible();
  await expect(page.getByText('The lab is at step 0: run the steps before this one first.')).toBeVisible();
  await expect(page.getByRole('list', { name: 'Failover history' }).getByRole('listitem')).toHaveCount(0);
  await page.getByRole('button', { name: 'Run steps 1 to 4' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Steps 1 to 4: done' })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByText('The lab has done this step.')).toBeVisible();
  const history = page.getByRole('list', { name: 'Failover history' });
  await expect(history).toContainText(/A writes "A-\d+" with token \d+ -> accepted \(by the primary\)/);
  await expect(history).toContainText('replication to the standby cut');
  await expect(page.getByRole('row', { name: /^standby\b/ })).toContainText(/"A-\d+"/);
});
