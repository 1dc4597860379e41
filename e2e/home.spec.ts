import { expect, test } from './fixtures';
import { HomePage } from './pages/home-page';

/** The pause story runs for real in a command line (its leases run out in real time): about 15 s on a quiet machine. */
const STORY_TIMEOUT = 90_000;

test('the page shows what the pause scenario really left in Postgres', async ({ page, runScenario }) => {
  test.setTimeout(STORY_TIMEOUT);
  const story = await runScenario('pause');
  const verdict = story.find((line) => line.step === 'verdict');
  expect(verdict?.safe).toBe(true);
  // The row the run left: B's value with B's token (the scenario's last line but the verdict).
  const final = story.find((line) => line.step === 'final');
  expect(final?.value).toBe('B-1');
  const token = String(final?.lastToken);

  const home = new HomePage(page);
  await home.goto();
  await expect(home.heading).toBeVisible();
  const row = home.rowById(1);
  await expect(row.getByRole('cell', { name: 'B-1', exact: true })).toBeVisible();
  await expect(row.getByRole('cell', { name: token, exact: true })).toBeVisible();
  await expect(home.leaseOn('lab/fenced').getByRole('cell', { name: 'B', exact: true })).toBeVisible();
  await expect(home.leaseOn('lab/fenced').getByRole('cell', { name: token, exact: true })).toBeVisible();
});

test('the tables follow the database without a reload, and live refresh can be paused', async ({
  page,
  runScenario,
}) => {
  test.setTimeout(STORY_TIMEOUT);
  const home = new HomePage(page);
  await home.goto();
  await expect(home.liveToggle).toHaveAttribute('aria-pressed', 'true');
  const story = await runScenario('pause');
  const final = story.find((line) => line.step === 'final');
  await expect(home.rowById(1).getByRole('cell', { name: String(final?.lastToken), exact: true })).toBeVisible();

  await home.liveToggle.click();
  await expect(home.liveToggle).toHaveAttribute('aria-pressed', 'false');
  await expect(home.liveToggle).toHaveText('Live refresh paused');
});

test('GET /api/health answers 200 with the database time', async ({ request }) => {
  const response = await request.get('/api/health');
  expect(response.status()).toBe(200);
  const body = await response.json();
  expect(body.status).toBe('up');
  expect(Number.isNaN(Date.parse(body.databaseTime))).toBe(false);
});
