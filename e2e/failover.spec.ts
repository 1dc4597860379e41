import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { seriousViolations } from './axe';
import { FAILOVER_STEP_TIMEOUT, resetFailoverLab, runFailoverSteps } from './failover-walk';
import { expect, test } from './fixtures';
import { ImportPage } from './pages/replay-page';
import { failoverStepHeadingOf, failoverStepNumberOf, failoverStepOf } from './steps';

/*
 * The failover lab walked through to the end in each mode, on a real primary and standby: what each
 * server holds, and the lab's events as every lab shows them: the timeline's marks (its hidden,
 * keyboard-reachable list), the checker's verdict and the export.
 */

const STEP_TIMEOUT = FAILOVER_STEP_TIMEOUT;
const runSteps = runFailoverSteps;

const server = (page: Page, role: string) => page.getByRole('row', { name: new RegExp(`^${role}\\b`) });
/**
 * A mark of the timeline, by its accessible name (the one layout's words: lib/model/timeline/timeline-layout.ts
 * `markLabel`). The list holds the marks of the lanes on screen: the timeline is scrolled into view first.
 */
async function mark(page: Page, name: RegExp) {
  await page
    .getByRole('heading', { name: /^Timeline/ })
    .evaluate((heading) => heading.scrollIntoView({ block: 'start' }));
  return page.getByRole('list', { name: 'Marks on the timeline' }).getByRole('button', { name });
}

const resetLab = resetFailoverLab;

test('asynchronous replication: B’s acknowledged write is gone after the failover, A’s late write accepted, named', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.goto('/labs/failover');
  await resetLab(page);
  const writeB = failoverStepNumberOf('b-writes');
  const verdictStep = failoverStepNumberOf('the-verdict');
  await runSteps(page, 1, writeB);
  // B's write, acknowledged by the primary: on the timeline while it is still in view.
  await expect(
    await mark(page, /^(Violation: )?B's write "B-\d+" with token \d+: accepted\..* on the primary$/),
  ).toHaveCount(1);
  await runSteps(page, writeB + 1, verdictStep - 1);
  await page.getByRole('button', { name: `Show step ${verdictStep}`, exact: true }).click();
  await expect(page.getByRole('heading', { name: failoverStepHeadingOf('the-verdict') })).toBeVisible();
  // The verdict step is the checker's: the banner's count, in the narration's words.
  const banner = await page
    .getByRole('alert')
    .filter({ hasText: /^✗ Checker: \d+ violations?/ })
    .textContent();
  const count = /Checker: (\d+) violation/.exec(banner ?? '')?.[1];
  await expect(page.getByRole('region', { name: /^Walkthrough/ })).toContainText(
    new RegExp(`The checker’s verdict: UNSAFE: ${count} violations? in`),
  );

  // A's late write with its old token, accepted by the promoted standby, named by the checker.
  await expect(
    await mark(page, /^Violation: A's write "A-\d+" with token \d+: accepted\..* on the promoted standby$/),
  ).toHaveCount(1);
  // The cluster's steps, lab-wide marks with the layout's words.
  await expect(await mark(page, /^The primary killed \(SIGKILL\)\./)).toHaveCount(1);
  await expect(
    await mark(page, /^(Violation: )?The standby promoted: it takes the writes now\. .* its row holds "A-\d+"/),
  ).toHaveCount(1);
  await expect(server(page, 'promoted standby')).toContainText(/"A-\d+"/);
  await expect(server(page, 'primary')).toContainText('(down)');
  const verdict = page.getByRole('alert').filter({ hasText: /^✗ Checker: \d+ violations?/ });
  await expect(verdict).toBeVisible();
  const named = page
    .getByRole('listitem')
    .filter({ hasText: /^(acknowledged write lost|acknowledged grant lost|stale write accepted):/ });
  // One lost update, one violation: B's lost write, with A's stale write listed under it among its findings.
  const lostWrite = named.filter({
    hasText: /^acknowledged write lost: B's write "B-\d+"[\s\S]*; then a stale write accepted/,
  });
  await expect(lostWrite).toHaveCount(1);
  await expect(
    lostWrite.getByRole('listitem').filter({ hasText: /^stale write accepted: A wrote "A-\d+"/ }),
  ).toHaveCount(1);

  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export history (JSON)' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^fencing-lab-failover-.*\.json$/);
  const exported = JSON.parse(await readFile((await file.path()) as string, 'utf8'));
  expect(exported.lab.kind).toBe('failover');
  const kinds = exported.events.map((event: { kind: string }) => event.kind);
  expect(kinds).toContain('standby_promoted');
  expect(exported.events.find((event: { kind: string }) => event.kind === 'pair_started').detail.mode).toBe('async');

  // /replay opens it as any lab's history: the same marks, the same verdict.
  const imported = new ImportPage(page);
  await imported.goto();
  await imported.open(file.suggestedFilename(), await readFile((await file.path()) as string, 'utf8'));
  await expect(page.getByRole('alert').filter({ hasText: /^✗ Checker: \d+ violations?/ })).toBeVisible();
  await expect(
    await mark(page, /^Violation: A's write "A-\d+" with token \d+: accepted\..* on the promoted standby$/),
  ).toHaveCount(1);
  await expect(await mark(page, /^(Violation: )?The standby promoted: it takes the writes now\./)).toHaveCount(1);
  // The pair's servers at the replayed moment, from the file's events: the dead primary holds B's
  // acknowledged write, the promoted standby A's late one, and B's was never on it.
  const servers = page.getByRole('table', { name: /^Each server of the pair, as at [\d.]+ s \(replay\)$/ });
  await expect(
    servers
      .getByRole('row', { name: /^primary \(down\)/ })
      .getByRole('cell')
      .first(),
  ).toHaveText(/^"B-\d+", \d+$/);
  await expect(
    servers
      .getByRole('row', { name: /^promoted standby/ })
      .getByRole('cell')
      .first(),
  ).toHaveText(/^"A-\d+", \d+$/);
});

test('synchronous replication: B’s commit waits on the cut wire, nothing acknowledged is lost, A is rejected', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.goto('/labs/failover?mode=sync');
  const grantB = failoverStepNumberOf('b-takes-over', 'sync');
  await runSteps(page, 1, grantB - 1);
  await page.getByRole('button', { name: `Run step ${grantB}`, exact: true }).click();
  await expect(
    page.getByRole('status').filter({ hasText: 'waiting (the COMMIT is not acknowledged yet)' }),
  ).toBeVisible({
    timeout: STEP_TIMEOUT,
  });
  await expect(await mark(page, /^B's grant waits for the standby\./)).toHaveCount(1);
  await runSteps(page, grantB + 1, failoverStepNumberOf('the-verdict', 'sync') - 1);
  await expect(
    await mark(page, /^A's write "A-\d+" with token \d+: rejected as stale\..* on the promoted standby$/),
  ).toHaveCount(1);
  await expect(
    await mark(page, /^The standby promoted: it takes the writes now\. .* its row holds "B-\d+"/),
  ).toHaveCount(1);
  await expect(server(page, 'promoted standby')).toContainText(/"B-\d+"/);
  await expect(page.getByRole('status').filter({ hasText: '✓ Checker: no violation' })).toBeVisible();
});

test('a watcher sees the failover lab read-only; the page has no serious accessibility violation', async ({
  page,
  browser,
  baseURL,
}) => {
  // Two browsers and an accessibility scan: 28 s at load 10, the default 30 s is too close.
  test.setTimeout(90_000);
  await page.goto('/labs/failover');
  await expect(page.getByRole('heading', { name: 'Free play' })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);

  const watcherContext = await browser.newContext({ ...(baseURL ? { baseURL } : {}) });
  try {
    const watcher = await watcherContext.newPage();
    await watcher.goto(`/labs/failover?mode=sync&step=${failoverStepNumberOf('b-takes-over', 'sync')}`);
    await expect(watcher.getByText('Watching: only the trainer drives the failover lab.')).toBeVisible();
    await expect(
      watcher.getByRole('heading', { name: failoverStepHeadingOf('b-takes-over', 'sync'), exact: true }),
    ).toBeVisible();
    await expect(watcher.getByRole('button', { name: /^Run step/ })).toHaveCount(0);
    await expect(watcher.getByRole('button', { name: 'Kill the primary (SIGKILL)' })).toHaveCount(0);
    expect(await seriousViolations(watcher)).toEqual([]);
    // The worker labs' walkthrough page leads to the failover lab's own page; its presenter mode is its own, read-only.
    await watcher.goto('/labs/failover/walkthrough');
    await expect(watcher).toHaveURL(/\/labs\/failover$/);
    await watcher.goto('/labs/failover/present');
    await expect(watcher.getByRole('heading', { name: 'Watching: read-only' })).toBeVisible();
  } finally {
    await watcherContext.close();
  }
});

test('a deep link shows its step and runs nothing; its button runs the steps up to it', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/labs/failover');
  await resetLab(page);

  const cut = failoverStepNumberOf('replication-cut');
  await page.goto(`/labs/failover?step=${cut}`);
  await expect(page.getByRole('heading', { name: failoverStepHeadingOf('replication-cut') })).toBeVisible();
  await expect(page.getByText('The lab is at step 0: run the steps before this one first.')).toBeVisible();
  await expect(page.getByRole('region', { name: /^Walkthrough/ }).getByRole('status')).toHaveText('');
  const start = failoverStepNumberOf('start');
  await page.getByRole('button', { name: `Run steps ${start} to ${cut}` }).click();
  await expect(page.getByRole('status').filter({ hasText: `Steps ${start} to ${cut}: done` })).toBeVisible({
    timeout: 60_000,
  });
  await expect(page.getByText('The lab has done this step.')).toBeVisible();
  await expect(await mark(page, /^A's write "A-\d+" with token \d+: accepted\..* on the primary$/)).toHaveCount(1);
  await expect(await mark(page, /^Replication to the standby cut\./)).toHaveCount(1);
  await expect(page.getByRole('row', { name: /^standby\b/ })).toContainText(/"A-\d+"/);
});

test('presenter mode: → runs the lab’s next step for real and tells it; a watcher shows the trainer’s step, from Start over on', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(150_000);
  await page.goto('/labs/failover');
  await resetLab(page);
  await page.getByRole('link', { name: 'Presenter mode' }).click();
  const counter = page.getByTestId('step-counter');
  const narration = page.getByTestId('narration');
  // The story's first steps, one → apart: the pair's start, A's grant, A's write.
  const start = failoverStepOf(failoverStepNumberOf('start'));
  const grantA = failoverStepOf(failoverStepNumberOf('a-takes-the-lease'));
  const writeA = failoverStepOf(failoverStepNumberOf('a-writes'));
  await expect(counter).toHaveText(start);
  await expect(narration).toContainText('Two real PostgreSQL servers start,');
  // → runs the start and tells it from its record; the next → runs A's grant, told the same way: never an empty box.
  await page.keyboard.press('ArrowRight');
  await expect(narration).toContainText('Two real PostgreSQL servers started', { timeout: STEP_TIMEOUT });
  await expect(counter).toHaveText(start);
  await page.keyboard.press('ArrowRight');
  await expect(counter).toHaveText(grantA, { timeout: STEP_TIMEOUT });
  await expect(narration).toContainText(/A was granted the lease with token \d+ by the primary/, {
    timeout: STEP_TIMEOUT,
  });
  await page.keyboard.press('ArrowRight');
  await expect(counter).toHaveText(writeA, { timeout: STEP_TIMEOUT });
  await expect(narration).toContainText(/A wrote "A-\d+" with token \d+: the primary accepted it/, {
    timeout: STEP_TIMEOUT,
  });

  const watcherContext = await browser.newContext({ ...(baseURL ? { baseURL } : {}) });
  try {
    const watcher = await watcherContext.newPage();
    await watcher.goto('/labs/failover/present');
    const watched = watcher.getByTestId('narration');
    await expect(watcher.getByTestId('step-counter')).toHaveText(writeA);
    await expect(watched).toContainText(/A wrote "A-\d+"/);

    // Back to A's grant: the trainer's step, its words, and the timeline as of its moment (A's write not yet there).
    await page.keyboard.press('ArrowLeft');
    await expect(counter).toHaveText(grantA);
    await expect(narration).toContainText('A was granted the lease with token');
    const list = page.getByRole('list', { name: 'Marks on the timeline' });
    await expect(list.getByRole('button', { name: /^A's lease, token \d+\./ })).toHaveCount(1);
    await expect(
      list.getByRole('button', { name: /^A primary and a streaming standby started \(asynchronous/ }),
    ).toHaveCount(1);
    await expect(list.getByRole('button', { name: /^A's write "A-\d+"/ })).toHaveCount(0);
    await expect(watcher.getByTestId('step-counter')).toHaveText(grantA);
    await expect(watched).toContainText('A was granted the lease with token');

    // Start over: a new pair; the watcher shows the start told from the new story, never a blank A's grant.
    await page.getByRole('button', { name: 'Start over' }).click();
    await expect(narration).toContainText('Two real PostgreSQL servers started', { timeout: STEP_TIMEOUT });
    await expect(counter).toHaveText(start);
    await expect(watcher.getByTestId('step-counter')).toHaveText(start, { timeout: STEP_TIMEOUT });
    await expect(watched).toContainText('Two real PostgreSQL servers started', { timeout: STEP_TIMEOUT });
  } finally {
    await watcherContext.close();
  }
});
