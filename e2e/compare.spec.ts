import type { WireEvent } from '../lib/model/core/wire';
import { serializeHistory } from '../lib/model/history/history-file';
import type { LabId } from '../lib/model/lab/lab-kinds';
import { recorded } from '../lib/testing/histories';
import { seriousViolations } from './axe';
import { expect, test } from './fixtures';
import { ComparePage } from './pages/compare-page';
import { WORKER_STEP_TIMEOUT } from './pages/lab-page';
import { SessionPage } from './pages/session-page';
import { stepCountOf, stepNumberOf, stepTitleOf } from './steps';

/** Where a side of the comparison is in its lab's walkthrough, as the difference names it: "the walkthrough's step n of N, “its title”". */
function atStep(lab: LabId, id: string): string {
  return `the walkthrough's step ${stepNumberOf(lab, id)} of ${stepCountOf(lab)}, “${stepTitleOf(lab, id)}”`;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('the fenced and the unfenced labs after the pause part at A’s late write: rejected in one, accepted in the other', async ({
  page,
  lab,
  runScenario,
}) => {
  test.setTimeout(180_000);
  // Touched, so that both are reset when the test ends.
  lab('fenced');
  lab('no-fencing');
  const fenced = await runScenario('pause');
  const unfenced = await runScenario('no-fencing', { unsafe: true });
  expect(unfenced.find((line) => line.step === 'verdict')?.safe).toBe(false);
  // B's token: the fenced row's at the end (B's write, which A's late write did not overwrite).
  const takeover = Number(fenced.find((line) => line.step === 'final')?.lastToken);
  expect(takeover).toBeGreaterThan(0);

  const compare = new ComparePage(page);
  await compare.goto('fenced', 'no-fencing');
  await expect(compare.firstPicker.getByLabel('Lab (live)')).toHaveValue('fenced');
  await expect(compare.secondPicker.getByLabel('Lab (live)')).toHaveValue('no-fencing');
  await expect(compare.difference).toHaveText(
    new RegExp(
      `^First difference, A's writes after it woke up: in Fenced(?: \\(at ${escapeRegExp(atStep('fenced', 'a-wakes'))}\\))?, A's write with token #1 \\(\\d+\\) was rejected as stale: the row held token #2 \\(${takeover}\\); in No fencing(?: \\([^)]*\\))?, A's write with token #1 \\(\\d+\\) was accepted\\.$`,
    ),
    { timeout: WORKER_STEP_TIMEOUT },
  );

  // By the keyboard: the button moves both timelines to the difference, marked on each.
  await compare.showDifference.focus();
  await page.keyboard.press('Enter');
  await expect(compare.marker(compare.first)).toHaveText('first difference');
  await expect(compare.marker(compare.second)).toHaveText('first difference');
  await expect(compare.details(compare.first)).toContainText(/A's write "A-\d+" with token \d+: rejected as stale/);
  await expect(compare.details(compare.second)).toContainText(/A's write "A-\d+" with token \d+: accepted/);
  await expect(page.getByTestId('first-difference-shown')).toHaveText(
    'Both marks are selected: their details are below each timeline.',
  );
  // The verdicts beside them: the fenced lab safe, the unfenced one with its lost update.
  await expect(page.getByText('✓ Checker: no violation')).toBeVisible();
  await expect(page.getByRole('alert').filter({ hasText: /✗ Checker: \d+ violation/ })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
});

/** A recorded run as the file a lab's "Export history (JSON)" gives, for the file inputs. */
const historyFile = (name: string, lab: 'fenced' | 'no-fencing', events: readonly WireEvent[]) => ({
  name,
  mimeType: 'application/json',
  buffer: Buffer.from(
    serializeHistory({ lab: { id: lab, kind: lab, title: lab }, events, exportedAt: new Date(Date.UTC(2026, 11, 1)) }),
  ),
});

test('two exported files: the same run recorded again does not differ; the fenced and the unfenced one do', async ({
  page,
}) => {
  const fenced = recorded('fenced');
  // The same story on another day: other ids, other times, other tokens.
  const again = fenced.map((e) => ({
    ...e,
    id: e.id + 10_000,
    at: e.at + 86_400_000,
    ...(e.token === undefined ? {} : { token: e.token + 100 }),
    ...(e.storedToken ? { storedToken: e.storedToken + 100 } : {}),
  }));
  const compare = new ComparePage(page);
  await compare.goto();
  await compare.firstPicker
    .getByLabel('or a history file (JSON)')
    .setInputFiles(historyFile('monday.json', 'fenced', fenced));
  await compare.secondPicker
    .getByLabel('or a history file (JSON)')
    .setInputFiles(historyFile('tuesday.json', 'fenced', again));
  await expect(compare.difference).toHaveText(
    'No difference: in monday.json and tuesday.json every holder did the same things in the same order.',
  );
  await expect(compare.first).toBeVisible();
  await expect(compare.second).toBeVisible();

  await compare.secondPicker
    .getByLabel('or a history file (JSON)')
    .setInputFiles(historyFile('unfenced.json', 'no-fencing', recorded('no-fencing')));
  await expect(compare.difference).toHaveText(
    `First difference, A's writes after it woke up: in monday.json (at ${atStep('fenced', 'a-wakes')}), A's write with token #1 (62) was rejected as stale: the row held token #2 (63); in unfenced.json (at ${atStep('no-fencing', 'a-wakes')}), A's write with token #1 (64) was accepted.`,
  );
  await expect(compare.marker(compare.first)).toHaveText('first difference');
  // A file that is not a history is refused in words, and the comparison stays.
  await compare.firstPicker
    .getByLabel('or a history file (JSON)')
    .setInputFiles({ name: 'notes.json', mimeType: 'application/json', buffer: Buffer.from('{"hello":1}') });
  await expect(compare.firstPicker.getByRole('alert')).toHaveText(
    /✗ notes\.json was not opened: not a Fencing Lab history/,
  );
  await expect(compare.difference).toHaveText(/^First difference, A's writes after it woke up/);
  expect(await seriousViolations(page)).toEqual([]);
});

test('the timelines are fitted to the story, not to the minutes a lab went on writing after it', async ({ page }) => {
  const fenced = recorded('fenced');
  const last = fenced.at(-1);
  const tokenB = fenced.find((e) => e.actor === 'B' && e.kind === 'lease_acquired')?.token;
  expect(last).toBeDefined();
  // B went on writing, once a second, for twelve minutes after the story ended.
  const after = Array.from({ length: 12 * 60 }, (_, i) => ({
    ...(last as WireEvent),
    id: (last?.id ?? 0) + 1 + i,
    at: (last?.at ?? 0) + (i + 1) * 1_000,
    actor: 'B',
    kind: 'write_accepted' as const,
    token: tokenB,
    outcome: 'accepted',
    detail: { value: `B-${i + 2}` },
  }));
  const compare = new ComparePage(page);
  await compare.goto();
  await compare.firstPicker
    .getByLabel('or a history file (JSON)')
    .setInputFiles(historyFile('long.json', 'fenced', [...fenced, ...after]));
  await compare.secondPicker
    .getByLabel('or a history file (JSON)')
    .setInputFiles(historyFile('unfenced.json', 'no-fencing', recorded('no-fencing')));
  await expect(compare.difference).toHaveText(/^First difference, A's writes after it woke up/);
  for (const side of [compare.first, compare.second]) {
    const shown = side.getByRole('toolbar', { name: 'Timeline view' }).getByText(/^showing /);
    await expect(shown).toHaveText(/^showing \d+(\.\d)? s$/);
    const seconds = Number((await shown.textContent())?.match(/^showing ([\d.]+) s$/)?.[1]);
    // The story took under a minute: not the 600 s window of the whole run.
    expect(seconds).toBeLessThan(60);
  }
});

test('a lab this browser may not see is not offered, and asking for it by address shows nothing of it', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  // A real private lab, with a history, opened by another browser.
  const otherContext = await browser.newContext();
  try {
    const other = new SessionPage(await otherContext.newPage());
    const theirs = await other.openPrivateLab('Fenced');
    await theirs.startWorker('Zed', 3);
    await expect(theirs.writeMark('Zed', 'accepted', { value: 'Zed-1' })).toBeVisible({
      timeout: WORKER_STEP_TIMEOUT,
    });
    // Its own browser compares it: the id is a real lab with a history.
    const theirCompare = new ComparePage(other.page);
    await theirCompare.goto(theirs.lab, 'fenced');
    await expect(theirCompare.first).toBeVisible();

    // This browser asks for it by address: nothing of it is offered, drawn or sent.
    const served: string[] = [];
    page.on('response', (response) => {
      const path = new URL(response.url()).pathname;
      if (path.startsWith(`/api/labs/${theirs.lab}/`) && response.ok()) served.push(`${response.status()} ${path}`);
    });
    const compare = new ComparePage(page);
    await compare.goto(theirs.lab, 'fenced');
    await expect(compare.second).toBeVisible();
    await expect(compare.firstPicker.getByLabel('Lab (live)')).toHaveValue('');
    await expect(compare.firstPicker.getByRole('option', { name: new RegExp(theirs.lab) })).toHaveCount(0);
    await expect(compare.first).toHaveCount(0);
    await expect(compare.difference).toHaveText('Choose two histories to compare.');
    await expect(page.getByText(/Zed/)).toHaveCount(0);
    // Asked for directly, its history and its feed do not exist for this browser.
    for (const path of ['history', 'events']) {
      expect((await page.request.get(`/api/labs/${theirs.lab}/${path}`)).status()).toBe(404);
    }
    expect(served).toEqual([]);

    // Its workers stopped, so that nothing goes on writing into the next test.
    await theirs.gotoFreePlay();
    await theirs.reset();
  } finally {
    await otherContext.close();
  }
});

test('a what-if from a replay moment with a longer lease runs for real beside the original', async ({
  page,
  lab,
  runScenario,
}) => {
  test.setTimeout(180_000);
  // Touched, so that it is reset when the test ends.
  lab('fenced');
  await runScenario('pause');

  // The fenced lab replayed from its first event, three events on: A has taken the lease and written.
  await page.goto('/labs/fenced?at=0');
  const replay = page.getByRole('region', { name: /^Replay/ });
  for (let i = 0; i < 3; i += 1) await replay.getByRole('button', { name: 'Next event' }).click();
  await replay.getByText(/^What if…/).click();
  const ttl = replay.getByLabel('Lease TTL (s)');
  await ttl.fill('6');
  // The form starts from the original's own freeze; a 2 s pause here, inside the 6 s lease.
  await expect(replay.getByLabel('Pause length (s)')).toHaveValue(/^[1-9]/);
  await expect(replay.getByTestId('what-if-origin')).toContainText(
    /the pause, [\d.]+ s, is how long A stayed frozen in the original/,
  );
  await replay.getByLabel('Pause length (s)').fill('2');
  await expect(replay.getByRole('radio', { name: 'on (token checked)' })).toBeChecked();
  await replay.getByRole('button', { name: 'Run the what-if' }).click();

  // Beside the original on /compare: the fork says what it is and what it started from. The action opens
  // a lab and queues its story before the page moves: over 5 s once at load 15.
  await expect(page).toHaveURL(/\/compare\?a=fenced&b=p-[a-z0-9]{10}$/, { timeout: 30_000 });
  const forkId = new URL(page.url()).searchParams.get('b') ?? '';
  const compare = new ComparePage(page);
  await expect(page.getByTestId('fork-note')).toContainText(`Fenced (${forkId}) is a what-if fork of Fenced from`);
  await expect(page.getByTestId('fork-note')).toContainText('pause 2 s, lease TTL 6 s');
  await expect(compare.secondPicker.getByLabel('Lab (live)')).toHaveValue(forkId);
  // A 2 s freeze inside a 6 s lease: A wakes still holding it, and its late write, rejected in the original, is
  // accepted in the fork.
  await expect(compare.difference).toHaveText(
    new RegExp(
      `^First difference, A's writes after it woke up: in Fenced(?: \\([^)]*\\))?, A's write with token #1 \\(\\d+\\) was rejected as stale: the row held token #2 \\(\\d+\\); in Fenced \\(your private lab ${forkId}\\)(?: \\([^)]*\\))?, A's write with token #1 \\(\\d+\\) was accepted\\.$`,
    ),
    { timeout: 60_000 },
  );
  await compare.showDifference.click();
  await expect(compare.details(compare.first)).toContainText(/A's write "A-\d+" with token \d+: rejected as stale/);
  await expect(compare.details(compare.second)).toContainText(/A's write "A-\d+" with token \d+: accepted/);
  await expect(page.getByTestId('first-difference-shown')).toHaveText(/^Both marks are selected/);
  expect(await seriousViolations(page)).toEqual([]);

  // The fork's own page leads back to this comparison.
  await page.goto(`/labs/${forkId}`);
  await page.getByRole('link', { name: 'Compare with the lab it was forked from' }).click();
  await expect(page).toHaveURL(new RegExp(`/compare\\?a=fenced&b=${forkId}$`));
  await expect(compare.secondPicker.getByLabel('Lab (live)')).toHaveValue(forkId);
});
