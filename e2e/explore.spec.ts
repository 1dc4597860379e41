import { seriousViolations } from './axe';
import { expect, test } from './fixtures';

/*
 * The Explore page (issue 35): every interleaving of the no-fencing lab's small story, each write run
 * by its real SQL in a rolled-back transaction; the shortest way to break it played as a path; Back;
 * the permalink reopens the same state; the fenced lab holds. Nothing of the labs changes.
 */

test('explore the no-fencing lab: the shortest break, Back, a step by hand, the permalink', async ({ page }) => {
  await page.goto('/labs/no-fencing/explore?holders=2&writes=2');
  await expect(page.getByTestId('explore-verdict')).toContainText(
    /breaks in [\d,]+ of [\d,]+ interleavings of 2 holders × 2 writes/,
  );
  await expect(page.getByText('Nothing has happened yet')).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);

  await page.getByRole('link', { name: 'Show me the shortest way to break it' }).click();
  const steps = page.getByTestId('explore-steps').getByRole('listitem');
  await expect(steps).toHaveCount(5);
  await expect(steps.nth(3)).toHaveText(/^B's write of "B1" with token (\d+) reaches the row: accepted$/);
  await expect(steps.nth(4)).toHaveText(/^A's write of "A1" with token (\d+) reaches the row: accepted$/);
  await expect(page.getByTestId('explore-row')).toHaveText(/The row holds “A1” with token \d+\./);
  await expect(page.getByTestId('explore-violation')).toContainText('The checker:');
  await expect(page.getByText('Nothing: this interleaving broke here.')).toBeVisible();

  // The permalink: the same state again.
  const permalink = page.url();
  expect(permalink).toMatch(/path=\d(\.\d){4}$/);
  await page.goto(permalink);
  await expect(steps).toHaveCount(5);
  await expect(page.getByTestId('explore-violation')).toBeVisible();

  // Back one step: B's value is the row's, nothing broke yet, and A's late write is a choice.
  await page.getByRole('link', { name: 'Back', exact: true }).click();
  await expect(steps).toHaveCount(4);
  await expect(page.getByTestId('explore-row')).toHaveText(/The row holds “B1” with token \d+\./);
  await expect(page.getByTestId('explore-violation')).toHaveCount(0);
  const late = page
    .getByTestId('explore-next')
    .getByRole('link', { name: /^A's write with token \d+ reaches the row$/ });
  await late.focus();
  await page.keyboard.press('Enter');
  await expect(steps).toHaveCount(5);
  await expect(page.getByTestId('explore-violation')).toBeVisible();
  expect(page.url()).toBe(permalink);
});

test('explore the fenced lab: it holds within its bounds, said with what was explored', async ({ page }) => {
  await page.goto('/labs/fenced/explore?holders=2&writes=2');
  await expect(page.getByTestId('explore-verdict')).toHaveText(
    /^Fenced.*: [\d,]+ states, [\d,]+ interleavings of 2 holders × 2 writes, explored in [\d.]+ s: no interleaving loses a write\.$/,
  );
  await expect(page.getByRole('link', { name: 'Show me the shortest way to break it' })).toHaveCount(0);
});

test('a bad address is told in words; a lab the explorer does not run says why', async ({ page }) => {
  await page.goto('/labs/fenced/explore?holders=9');
  // Next's route announcer is an alert too: the page's own is the one with words.
  const alert = page.getByRole('alert').filter({ hasText: /\S/ });
  await expect(alert).toHaveText('This address cannot be explored: holders is at most 3.');
  await page.goto('/labs/delayed-packet/explore');
  await expect(alert).toContainText('is not explored yet');
});
