import { seriousViolations } from './axe';
import { expect, test } from './fixtures';
import { SweepPage } from './pages/sweep-page';

/*
 * The sweep, in the browser, on a 2 × 1 grid: a pause far shorter than the lease (0.3 s of 2 s) and
 * one far longer (5 s), each run for real without fencing and fenced. The page shows the progress, then the heat
 * map cell by cell in words, and exports the figure as SVG.
 */

const SWEEP_TIMEOUT = 90_000;

test('a 2 × 1 sweep: progress, the heat map in words, the SVG export, axe clean', async ({ page }) => {
  // Four runs of two real worker processes each, one at a time: two at a time on this 2-CPU machine beside
  // Chromium and the app once starved a worker's heartbeat, and its run read "unfinished: A is not running"
  // (a clean-clone CI run, 2026-12-02). Two at a time is held by lib/sweep/sweep.test.ts.
  test.setTimeout(SWEEP_TIMEOUT + 60_000);
  const sweep = new SweepPage(page);
  await sweep.goto();
  await sweep.pauses.fill('300, 5000');
  await sweep.ttls.fill('2000');
  await sweep.drifts.fill('0');
  await sweep.runsAtOnce.fill('1');
  await sweep.start.click();

  await expect(sweep.progress).toHaveAttribute('aria-valuemax', '4');
  await expect(sweep.progress).toHaveAttribute('aria-valuenow', '4', { timeout: SWEEP_TIMEOUT });
  await expect(sweep.progress).toHaveAttribute('aria-valuetext', 'Done: 4 of 4 runs');
  await expect(sweep.status).toContainText('Done: 4 of 4 runs');

  const lost = sweep.cell(
    'pause 5000 ms, lease TTL 2000 ms, without fencing: a stale write was attempted and accepted: a lost update',
  );
  const rejected = sweep.cell(
    'pause 5000 ms, lease TTL 2000 ms, fenced: a stale write was attempted and fencing rejected it',
  );
  await expect(lost).toBeVisible();
  await expect(rejected).toBeVisible();
  await expect(sweep.cell(/^pause 300 ms, lease TTL 2000 ms, without fencing: no stale write/)).toBeVisible();
  await expect(sweep.cell(/^pause 300 ms, lease TTL 2000 ms, fenced: no stale write/)).toBeVisible();
  await expect(sweep.heatmap.getByRole('button')).toHaveCount(4);

  // The keyboard reaches a cell, and pressing it reads it out below the map.
  await rejected.focus();
  await page.keyboard.press('Enter');
  await expect(sweep.selected).toHaveText(/fenced: a stale write was attempted and fencing rejected it/);

  expect(await seriousViolations(page)).toEqual([]);

  const light = await sweep.download();
  expect(light.fileName).toMatch(/^fencing-lab-sweep-\d{8}T\d{6}Z\.svg$/);
  expect(light.text).toContain(
    '<title>pause 5000 ms, lease TTL 2000 ms, without fencing: a stale write was attempted and accepted: a lost update</title>',
  );
  expect(light.text.match(/<g data-outcome="stale-accepted">/g)).toHaveLength(1);
  expect(light.text.match(/<g data-outcome="stale-rejected">/g)).toHaveLength(1);
  expect(light.text.match(/<g data-outcome="no-stale-write">/g)).toHaveLength(2);
  expect(light.text).toContain('fill="#ffffff"');
  await sweep.exportTheme.selectOption('dark');
  const dark = await sweep.download();
  expect(dark.text).toContain('fill="#020617"');

  // The same page in the dark theme (for projectors): the map repaints, and contrast is checked again.
  // The toggle says what it does: it switches to the dark theme, then offers the light one back.
  await page.getByRole('button', { name: 'Switch to dark theme' }).click();
  await expect(page.getByRole('button', { name: 'Switch to light theme' })).toBeVisible();
  await expect(page.locator('html')).toHaveClass(/\bdark\b/);
  expect(await seriousViolations(page)).toEqual([]);
  // Exported "as on screen", the figure now takes the dark theme.
  await sweep.exportTheme.selectOption('screen');
  expect((await sweep.download()).text).toContain('fill="#020617"');
});

test('a sweep stopped from the keyboard: no new run starts, the run under way reads as stopped, the slot is free', async ({
  page,
}) => {
  test.setTimeout(SWEEP_TIMEOUT + 60_000);
  const sweep = new SweepPage(page);
  await sweep.goto();
  // Four long runs, one at a time: the sweep would hold the room's one sweep slot for a minute.
  await sweep.pauses.fill('5000');
  await sweep.ttls.fill('2000, 3000');
  await sweep.drifts.fill('0');
  await sweep.runsAtOnce.fill('1');
  await sweep.start.click();
  await expect(sweep.progress).toHaveAttribute('aria-valuemax', '4');
  // A server has taken the first run from the room's queue: it is under way when the stop comes.
  await expect(sweep.status).toContainText('0 of 4 runs done, 1 under way', { timeout: SWEEP_TIMEOUT });

  await sweep.stop.focus();
  await page.keyboard.press('Enter');
  await expect(sweep.status).toContainText(/Stopped after [0-3] of 4 runs/, { timeout: SWEEP_TIMEOUT });
  await expect(sweep.progress).toHaveAttribute('aria-valuetext', /^Stopped after [0-3] of 4 runs$/);
  await expect(sweep.cell(/stopped: the sweep was stopped while this run was under way/)).toHaveCount(1);
  await expect(sweep.heatmap.getByRole('button', { name: /not run \(the sweep ended first\)/ })).not.toHaveCount(0);
  await expect(sweep.stop).toHaveCount(0);
  await expect(sweep.start).toBeEnabled();
  expect(await seriousViolations(page)).toEqual([]);
});

test('a refused grid names the field and the rule in words, never a path into the payload', async ({ page }) => {
  const sweep = new SweepPage(page);
  await sweep.goto();
  await sweep.pauses.fill('200, 8OO');
  await sweep.start.click();
  await expect(sweep.refusal).toHaveText(
    '✗ Pause lengths (ms): "8OO" is not a number; write whole numbers separated by commas, for example 200, 800, 2000',
  );
  // Fixed, the refusal goes at once, before the form is sent again.
  await sweep.pauses.fill('200, 800');
  await expect(sweep.refusal).toHaveText('');
  await sweep.pauses.fill('50');
  await sweep.start.click();
  // The server's rule (the zod schema's own words), checked before the form is sent.
  await expect(sweep.refusal).toHaveText('✗ pause lengths must be at least 100 ms');
  // Once refused, the fields are checked as they change: another mistake replaces the refusal, a fix clears it.
  await sweep.ttls.fill('1000, x');
  await expect(sweep.refusal).toHaveText(/^✗ Lease TTLs \(ms\): "x" is not a number/);
  await sweep.ttls.fill('1000');
  await expect(sweep.refusal).toHaveText('✗ pause lengths must be at least 100 ms');
  await sweep.pauses.fill('200');
  await expect(sweep.refusal).toHaveText('');
  await expect(sweep.start).toBeEnabled();
});

test('a browser with neither the trainer key nor a private lab is told how to sweep, and sees no form', async ({
  browser,
}) => {
  const context = await browser.newContext();
  const watcher = new SweepPage(await context.newPage());
  await watcher.goto();
  await expect(watcher.page.getByText(/a sweep starts real worker processes/i)).toBeVisible();
  await expect(watcher.start).toHaveCount(0);
  expect(await seriousViolations(watcher.page)).toEqual([]);
  await context.close();
});
