import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { WORKER_STEP_TIMEOUT } from './pages/lab-page';

/**
 * Runs axe on the page as it settles; returns the serious and critical violations, in words. It waits
 * for running CSS transitions to end first (a theme switch, a table row's highlight fading): colours
 * caught halfway through a 0.7 s transition are not what anyone reads.
 */
async function seriousViolations(page: Page): Promise<string[]> {
  await expect
    .poll(() => page.evaluate(() => document.getAnimations().filter((a) => a instanceof CSSTransition).length), {
      timeout: WORKER_STEP_TIMEOUT,
    })
    .toBe(0);
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  expect(results.passes.length, 'axe ran its checks').toBeGreaterThan(0);
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .flatMap((violation) =>
      violation.nodes.map(
        (node) =>
          `${violation.impact} ${violation.id} (${violation.help}): ${node.target.join(' ')}: ${node.failureSummary}`,
      ),
    );
}

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
  const darkTheme = fenced.page.getByRole('button', { name: 'Dark theme' });
  await darkTheme.click();
  await expect(darkTheme).toHaveAttribute('aria-pressed', 'true');
  expect(await seriousViolations(fenced.page)).toEqual([]);
});

test('the walkthrough, at its end (every kind of mark drawn), has no serious or critical accessibility violation', async ({
  lab,
}) => {
  test.setTimeout(90_000);
  const fenced = lab('fenced');
  // The deep link runs steps 1 to 6 for real, then shows step 7.
  await fenced.gotoWalkthrough(7);
  await fenced.expectStep(7, "The row still holds B's value");
  await expect(fenced.writeMark('A', 'rejected')).toHaveCount(1);
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
  } finally {
    await context.close();
  }
});
