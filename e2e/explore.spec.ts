import { seriousViolations } from './axe';
import { expect, test } from './fixtures';
import { LabPage } from './pages/lab-page';
import { ReplayControls } from './pages/replay-page';

/*
 * The Explore page (issue 35): every interleaving of the no-fencing lab's small story, each write run
 * by its real SQL in a rolled-back transaction; the shortest way to break it played as a path; Back;
 * the permalink reopens the same state; the fenced lab holds. Nothing of the labs changes.
 */

// Exploring is CPU work on the server and two of these tests scan with axe: about 10 s alone, 20 s
// beside another e2e half, and past Playwright's 30 s on a machine busier still.
test.describe.configure({ timeout: 90_000 });

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
  // The same state drawn on the lab's own timeline, A's late write flagged by the checker, and still accessible.
  const explored = new LabPage(page, 'no-fencing');
  await expect(explored.markTitled(/^Violation: A's write "A1" with token \d+: accepted/)).toBeAttached();
  await expect(explored.checkerViolations).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);

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
  // The drawing follows the path shown: no late write of A's, nothing flagged.
  await expect(explored.rowValue()).toHaveText('B1');
  await expect(explored.markTitled(/^Violation: /)).toHaveCount(0);
  const late = page
    .getByTestId('explore-next')
    .getByRole('link', { name: /^A's write with token \d+ reaches the row$/ });
  await late.focus();
  await page.keyboard.press('Enter');
  await expect(steps).toHaveCount(5);
  await expect(page.getByTestId('explore-violation')).toBeVisible();
  expect(page.url()).toBe(permalink);

  // The broken interleaving as a run: a history file to download, and Replay opens it like any run's.
  const file = await page.request.get(
    await page.getByRole('link', { name: 'Download it as a history file' }).getAttribute('href').then(String),
  );
  expect(file.status()).toBe(200);
  expect(file.headers()['content-disposition']).toMatch(
    /attachment; filename="fencing-lab-explore-no-fencing-2x2-[\d.]+\.json"/,
  );
  const history = await file.json();
  expect(history.format).toBe('fencing-lab-history');
  expect(history.events.map((event: { kind: string }) => event.kind)).toContain('write_accepted');
  await page.getByRole('link', { name: 'Open it in Replay' }).click();
  await page.waitForURL(/\/replay\?explore=no-fencing&holders=2&writes=2&path=/);
  await expect(page.getByTestId('replayed-file')).toContainText(
    'an explored interleaving of 2 holders × 2 writes, 5 steps',
  );
  // A's late write is on the replayed timeline, flagged by the checker as the page said.
  await expect(
    new LabPage(page, 'no-fencing').markTitled(/^Violation: A's write "A1" with token \d+: accepted/),
  ).toBeAttached();
  expect(await seriousViolations(page)).toEqual([]);
});

test('explore the fenced lab: it holds within its bounds, said with what was explored', async ({ page }) => {
  await page.goto('/labs/fenced/explore?holders=2&writes=2');
  await expect(page.getByTestId('explore-verdict')).toHaveText(
    /^Fenced.*: [\d,]+ states, [\d,]+ interleavings of 2 holders × 2 writes, explored in [\d.]+ s: no interleaving loses a write\.$/,
  );
  await expect(page.getByRole('link', { name: 'Show me the shortest way to break it' })).toHaveCount(0);
  // Careful holders: a renewal is a step of its own, and the verdict names it among its bounds.
  await page.getByTestId('explore-renew').click();
  await expect(page).toHaveURL(/renew=1/);
  await expect(page.getByTestId('explore-verdict')).toHaveText(
    /of 2 holders × 2 writes, each renewing its lease before every later write and giving it back after its last, explored in [\d.]+ s: no interleaving loses a write\.$/,
  );
  await page.getByRole('link', { name: 'A asks for the lease' }).click();
  await page.getByRole('link', { name: /^A's write with token \d+ reaches the row$/ }).click();
  await page.getByRole('link', { name: /^A renews its lease \(token \d+\)$/ }).click();
  await expect(page.getByTestId('explore-steps')).toContainText(/A renews its lease \(token \d+\): it still holds it/);
});

test('a bad address is told in words; the bypass lab breaks by its catch-up path', async ({ page }) => {
  await page.goto('/labs/fenced/explore?holders=9');
  // Next's route announcer is an alert too: the page's own is the one with words.
  const alert = page.getByRole('alert').filter({ hasText: /\S/ });
  await expect(alert).toHaveText('This address cannot be explored: holders is at most 3.');
  // The lab's two paths, as its worker picks one: A's overdue write takes the one with no check.
  await page.goto('/labs/bypass/explore?holders=2&writes=2&path=0.0.0.1.0');
  await expect(
    page.getByText(/A's overdue write of "A1" with token \d+ takes the catch-up path, which checks no token: accepted/),
  ).toBeVisible();
  // The same words for a history file of a bad address, and on Replay.
  const refused = await page.request.get('/labs/fenced/explore/history?holders=9');
  expect(refused.status()).toBe(400);
  expect(await refused.text()).toContain('holders is at most 3');
  await page.goto('/replay?explore=fenced&holders=9');
  await expect(alert).toHaveText(
    '✗ No explored interleaving to open: this address cannot be explored: holders is at most 3.',
  );
});

test('the shortest way plays a step at a time, and pauses', async ({ page }) => {
  await page.goto('/labs/no-fencing/explore?holders=2&writes=2');
  const status = page.getByTestId('explore-playing');
  await page.getByRole('link', { name: 'Play it step by step' }).click();
  await expect(status).toHaveText('Playing the shortest way: step 1 of 5…');
  // The list grows with the status, a step every 1.5 s: read together, they agree on the step shown.
  const played = page.getByTestId('explore-steps').getByRole('listitem');
  await expect
    .poll(async () => {
      const [text, count] = await Promise.all([status.textContent(), played.count()]);
      return Number(/^Playing the shortest way: step (\d) of 5…$/.exec(text ?? '')?.[1]) === count;
    })
    .toBe(true);
  // Paused at a step: the address keeps it, and the way on is offered.
  await expect(status).toHaveText('Playing the shortest way: step 2 of 5…');
  await page.getByRole('link', { name: 'Pause' }).click();
  await page.waitForURL((url) => !url.searchParams.has('play'));
  await expect(page.getByRole('link', { name: 'Play on' })).toBeVisible();
  await expect(status).toHaveText('');
  await page.getByRole('link', { name: 'Play on' }).click();
  await expect(status).toHaveText('Played the shortest way: all 5 steps.', { timeout: 30_000 });
  await expect(played).toHaveCount(5);
  await expect(page.getByTestId('explore-violation')).toContainText('lost update');
});

test('explore the failover lab: asynchronous breaks in 3 steps, drawn on the pair; synchronous holds', async ({
  page,
}) => {
  await page.goto('/labs/failover/explore?holders=2&writes=3');
  await expect(page.getByTestId('explore-verdict')).toContainText(
    /^Failover \(asynchronous replication\): breaks in [\d,]+ of [\d,]+ interleavings of 2 holders × 3 writes .*the shortest has 3 steps/,
  );
  await page.getByRole('link', { name: 'Show me the shortest way to break it' }).click();
  const steps = page.getByTestId('explore-steps').getByRole('listitem');
  await expect(steps).toHaveText([
    /^A asks for the lease and is granted token 1 on the primary$/,
    /^A's write of "A1" with token 1 reaches the row on the primary: accepted$/,
    /^The primary dies; the standby, 1 grant and 1 write behind, is promoted/,
  ]);
  await expect(page.getByTestId('explore-row')).toHaveText(
    'The row on the promoted standby holds “initial” with token 0.',
  );
  await expect(page.getByTestId('explore-violation')).toContainText('acknowledged write lost');

  // Drawn on the lab's timeline: the write accepted, the promotion; A's lease runs until the promotion
  // took it, not "ran out" at its grant beside the write it made under it; the table is the pair's.
  const explored = new LabPage(page, 'failover');
  await expect(explored.markTitled(/^(Violation: )?A's write "A1" with token 1: accepted/)).toBeAttached();
  await expect(
    explored.markTitled(/^(Violation: )?The standby promoted: it takes the writes now/).first(),
  ).toBeAttached();
  const lease = explored.markTitled(/^A's lease, token 1\./);
  await expect(lease).toHaveAccessibleName(/granted at 00:00:00\.000 .*ran out at 00:00:00\.200/);
  const band = explored.markTitled(/^A believes it holds token 1, but its lease ran out/);
  await expect(band).toHaveCount(0);
  await expect(page.getByRole('heading', { name: /^fo_rows/ })).toBeVisible();
  await expect(page.getByText('no guard: a broken lab')).toHaveCount(0);
  await expect(explored.rowValue()).toHaveText('initial');

  // The pair's servers as at the last step, from its events: the promoted standby never had A's
  // write or grant; the dead primary's row is the one it acknowledged.
  const servers = page.getByRole('table', { name: 'Each server of the pair, after step 3' });
  const serverCells = (role: RegExp) => servers.getByRole('row', { name: role }).getByRole('cell');
  await expect(serverCells(/^promoted standby/)).toHaveText(['"initial", 0', 'none', 'covers up to 0']);
  await expect(serverCells(/^primary \(down\)/)).toHaveText([
    '"A1", 1',
    'A, token 1 (its lease row when it went down)',
    'last 1',
  ]);
  await expect(
    page.getByText('Asynchronous replication; the primary is down; the standby was promoted.'),
  ).toBeVisible();

  const inReplay = await page.getByRole('link', { name: 'Open it in Replay' }).getAttribute('href');
  // Its history file records the pair's start first, with its replication, as the live lab does.
  const download = await page.getByRole('link', { name: 'Download it as a history file' }).getAttribute('href');
  const exported = await (await page.request.get(String(download))).json();
  expect(exported.events[0]).toMatchObject({ kind: 'pair_started', detail: { mode: 'async' } });

  // One step back, before the promotion: A's lease still runs, and nothing says it ran out.
  await page.getByRole('link', { name: 'Back', exact: true }).click();
  await expect(steps).toHaveCount(2);
  await expect(explored.markTitled(/^A's write "A1" with token 1: accepted/)).toBeAttached();
  await expect(lease).toHaveAccessibleName(/runs out at 00:00:00\.200/);
  await expect(band).toHaveCount(0);
  await expect(explored.rowValue()).toHaveText('A1');
  // Before the promotion: the primary has A's write and A's lease; the standby, not caught up, has neither.
  const before = page.getByRole('table', { name: 'Each server of the pair, after step 2' });
  const beforeCells = (role: RegExp) => before.getByRole('row', { name: role }).getByRole('cell');
  await expect(beforeCells(/^primary /)).toHaveText(['"A1", 1', 'A, token 1, running', 'last 1']);
  await expect(beforeCells(/^standby /)).toHaveText(['"initial", 0', 'none', 'none handed out']);
  await expect(page.getByText('Holders: A token 1 · B no token')).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);

  await page.getByTestId('explore-sync').click();
  await expect(page.getByRole('heading', { name: 'Holds within these bounds' })).toBeVisible();
  await expect(page.getByTestId('explore-verdict')).toContainText(
    /^Failover \(synchronous replication\): .*no interleaving/,
  );

  // The same path in Replay: the servers at the end, then at the moment of A's write, from the file's events.
  expect(inReplay).toMatch(/^\/replay\?explore=failover&/);
  await page.goto(inReplay ?? '');
  const replayed = (moment: string) =>
    page.getByRole('table', { name: `Each server of the pair, ${moment}` }).getByRole('row');
  await expect(
    replayed('as at 0.2 s (replay)')
      .filter({ hasText: /^promoted standby/ })
      .getByRole('cell'),
  ).toHaveText(['"initial", 0', 'none', 'covers up to 0']);
  // The file's pair_started says its replication, and Replay reads it from there, not a guess.
  await expect(
    page.getByText('Asynchronous replication; the primary is down; the standby was promoted.'),
  ).toBeVisible();
  const replay = new ReplayControls(page);
  await replay.pressOnSlider('Home');
  await replay.nextEvent.click();
  await expect(
    replayed('as at 0.1 s (replay)')
      .filter({ hasText: /^standby/ })
      .getByRole('cell'),
  ).toHaveText(['"initial", 0', 'none', 'none handed out']);
  await expect(
    replayed('as at 0.1 s (replay)')
      .filter({ hasText: /^primary/ })
      .getByRole('cell'),
  ).toHaveText(['"A1", 1', 'A, token 1, running', 'last 1']);
});
