import { expect, test } from './fixtures';
import { ATTACK_TIMEOUT, GuardPage } from './pages/guard-page';
import { SessionPage } from './pages/session-page';

const SET = 'UPDATE guarded_row SET value = $1, last_token = $2 WHERE id = $3';

test('a counterexample opens with its timeline above the fold at 1280×720, its author told apart as on the wall', async ({
  browser,
}) => {
  test.setTimeout(2 * ATTACK_TIMEOUT);
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  try {
    const session = new SessionPage(await context.newPage());
    const opened = await session.openPrivateLab('Your guard');
    const guard = new GuardPage(opened.page, opened.lab);
    await guard.name.fill('Sam');
    await guard.submit(SET, /your guard let token 9 overwrite token 10/);
    await guard.counterexample.click();
    await guard.page.waitForURL(/\/replay\?attempt=\d+$/);
    // Named as the wall names its author: two Sams are told apart.
    await expect(guard.page.getByTestId('replayed-file')).toContainText(/the guard of Sam · [0-9a-f]{4}/);
    await expect(guard.page.getByTestId('replayed-file')).not.toContainText("Sam's guard");

    // The deciding write is on the replayed timeline.
    await expect(
      guard.markTitled(/^(Violation: )?A's write "A-\d+" with token 9: accepted over the newer token 10\./),
    ).toBeAttached();
    // Above the fold, without scrolling: the timeline's drawing begins within 720 px, with room for its lanes.
    const page = guard.page;
    await page.evaluate(() => window.scrollTo(0, 0));
    const drawing = await guard.timeline.locator('canvas').first().boundingBox();
    expect(drawing).not.toBeNull();
    expect(drawing?.y ?? 720).toBeLessThan(720 - 150);
  } finally {
    await context.close();
  }
});
