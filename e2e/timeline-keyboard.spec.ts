import { appDatabaseUrl } from './app-database';
import { seriousViolations } from './axe';
import { freezeWorkers, writeKey, writesInDatabase } from './fault-room';
import { expect, test } from './fixtures';
import { WHOLE_WALKTHROUGH_TIMEOUT, WORKER_STEP_TIMEOUT } from './pages/lab-page';
import { stepCountOf } from './steps';

const WRITE_MARK = /^(?:Violation: )?(\S+)'s write "(.*)" with token (\d+): (accepted|rejected as stale)\./;

type Focused = { key: string; name: string } | undefined;

/** More tab stops than the lab page has before the timeline's marks (the labs' bar lists every lab). */
const MAX_TAB_PRESSES = 120;

test('with the keyboard alone, a person reaches every mark, and the writes among them are the events table’s writes', async ({
  lab,
  page,
}) => {
  test.setTimeout(180_000);
  const fenced = lab('fenced');
  // A short real run: A writes, freezes in its critical window, B takes over and writes, A wakes and
  // its stale write is rejected. Then both are frozen, so that no write lands during the walk.
  const lastStep = stepCountOf('fenced');
  await fenced.gotoWalkthrough(lastStep);
  await fenced.runSteps.click();
  await fenced.expectStep(lastStep, "The row holds B's value", { timeout: WHOLE_WALKTHROUGH_TIMEOUT });
  await fenced.gotoFreePlay();
  await expect(fenced.writeMark('A', 'rejected')).toHaveCount(1, { timeout: WORKER_STEP_TIMEOUT });
  await freezeWorkers(fenced, ['A', 'B']);

  const focused = (): Promise<Focused> =>
    page.evaluate(() => {
      const element = document.activeElement;
      if (!element?.closest('[aria-label="Marks on the timeline"]')) return undefined;
      return { key: element.getAttribute('data-mark') ?? '', name: element.getAttribute('aria-label') ?? '' };
    });

  // One Tab stop leads into the marks: one press at a time, each followed by a look (a retry with
  // back-off pressed once a second, slower than a person, and ran out of time before the page's tab stops did).
  await page.locator('body').click({ position: { x: 1, y: 1 } });
  for (let presses = 0; presses < MAX_TAB_PRESSES && (await focused()) === undefined; presses++) {
    await page.keyboard.press('Tab');
  }
  expect(await focused(), `a mark within ${MAX_TAB_PRESSES} presses of Tab`).toBeDefined();

  // The page's shortcuts (− zooms out, ← → pan) do not fire on a mark.
  const span = await fenced.shownSpan.textContent();
  await page.keyboard.press('-');
  await expect(fenced.shownSpan).toHaveText(span ?? '');

  await page.keyboard.press('End');
  await expect.poll(async () => (await focused())?.key).toBeTruthy();
  const last = (await focused()) as NonNullable<Focused>;
  await page.keyboard.press('Home');
  await expect.poll(async () => (await focused())?.key).not.toBe(last.key);

  const reached: string[] = [];
  let here = (await focused()) as NonNullable<Focused>;
  for (let steps = 0; steps < 500; steps++) {
    reached.push(here.name);
    // The details panel announces the focused mark.
    await expect(page.getByTestId('mark-details')).toContainText(
      here.name.replace(/^Violation: /, '').split('. ')[0] ?? '',
    );
    if (here.key === last.key) break;
    await page.keyboard.press('ArrowRight');
    const from = here.key;
    await expect.poll(async () => (await focused())?.key, { timeout: 5_000 }).not.toBe(from);
    here = (await focused()) as NonNullable<Focused>;
  }
  expect(reached.at(-1)).toBe(last.name);
  expect(new Set(reached).size, 'each mark once').toBe(reached.length);

  const writesReached = reached
    .map((name) => name.match(WRITE_MARK))
    .filter((match) => match !== null)
    .map(([, holder = '', value = '', token = '', outcome]) =>
      writeKey({ holder, value, token: Number(token), accepted: outcome === 'accepted' }),
    )
    .toSorted();
  const writesInTable = (await writesInDatabase(await appDatabaseUrl())).map(writeKey).toSorted();
  expect(
    writesInTable.some((key) => key.endsWith(': rejected')),
    'the run has a rejected write',
  ).toBe(true);
  expect(writesReached).toEqual(writesInTable);

  // ↑ / ↓ go to the nearest mark on the lane above / below (here: from the database lane to B's).
  await page.keyboard.press('ArrowUp');
  await expect.poll(async () => (await focused())?.name).toMatch(/^(Violation: )?B/);

  expect(await seriousViolations(page)).toEqual([]);
});
