import { seriousViolations } from './axe';
import { expect, test } from './fixtures';
import { WORKER_STEP_TIMEOUT } from './pages/lab-page';

test('the home page has no serious or critical accessibility violation', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1, name: 'Fencing Lab' })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
});

test('the fenced lab, with a worker running, has no serious or critical accessibility violation', async ({ lab }) => {
  test.setTimeout(60_000);
  const fenced = lab('fenced');
  await fenced.gotoFreePlay();
  await fenced.reset();
  await fenced.startWorker('A', 3);
  await fenced.waitForLeaseHolder('A');
  await expect(fenced.writeMark('A', 'accepted', { value: 'A-1' })).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });
  await fenced.shortcuts.click(); // the shortcuts list open too
  expect(await seriousViolations(fenced.page)).toEqual([]);

  // The same in the dark theme (for projectors): contrast is checked again.
  // The toggle says what it does: it switches to the dark theme, then offers the light one back.
  await fenced.page.getByRole('button', { name: 'Switch to dark theme' }).click();
  await expect(fenced.page.getByRole('button', { name: 'Switch to light theme' })).toBeVisible();
  await expect(fenced.page.locator('html')).toHaveClass(/\bdark\b/);
  expect(await seriousViolations(fenced.page)).toEqual([]);
});

test("a watcher's pages (home, and a lab read-only) have no serious or critical accessibility violation", async ({
  browser,
}) => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto('/');
    await expect(page.getByRole('heading', { name: 'Your private labs' })).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto('/labs/no-fencing');
    await expect(page.getByRole('region', { name: 'Watching: read-only' })).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    // The lab picker's ✓ and ✗ are for the eye: a screen reader hears in words whether a lab holds or breaks.
    const picker = await page.getByRole('navigation', { name: 'Labs' }).ariaSnapshot();
    expect(picker).toContain('link "Fenced (holds)"');
    expect(picker).toContain('link "No fencing (breaks)"');
    expect(picker).not.toMatch(/[✓✗]/);
  } finally {
    await context.close();
  }
});
