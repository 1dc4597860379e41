import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';
import { WORKER_STEP_TIMEOUT } from './pages/lab-page';

/**
 * Runs axe on the page as it settles; returns the serious and critical violations, in words. CSS
 * transitions are turned off first (a theme switch, a table row's highlight fading): colours caught
 * halfway through a 0.7 s fade are not what anyone reads, and on a lab whose worker writes and renews
 * every second some row is nearly always fading, so waiting for none to run can wait for ever.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.addStyleTag({ content: '*, *::before, *::after { transition: none !important; }' });
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
