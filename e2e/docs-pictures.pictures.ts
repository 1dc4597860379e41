import type { Locator, Page } from '@playwright/test';
import type { LabId } from '../lib/model/lab/lab-kinds';
import { SCREEN_SIZE, SCREENS, type ScreenId } from '../lib/testing/docs-screens';
import { expect, test } from './fixtures';
import { type LabPage, WORKER_STEP_TIMEOUT } from './pages/lab-page';
import { PresenterPage } from './pages/presenter-page';
import { stepOf } from './steps';

/*
 * The docs' pictures of the real screens (`npm run docs:pictures`, playwright.pictures.config.ts): the
 * trainer's browser walks the fenced and the no-fencing walkthroughs with real workers and takes each
 * screen of lib/testing/docs-screens.ts when it shows what the docs say it shows. A screen the list
 * names and this file cannot take does not compile (DRIVE is a record of every ScreenId).
 */

/** What to take of the window: all of it, or from a panel's top down (the lab bar above it left out). */
type Shot = { fromTopOf?: Locator };
type Drive = (page: Page, lab: (id: 'fenced' | 'no-fencing') => LabPage) => Promise<Shot>;

/** Runs a walkthrough from its reset to step `n`. */
async function walkTo(walk: LabPage, n: number) {
  await walk.gotoWalkthrough();
  await walk.startOver.click();
  await expect(walk.stepCounter).toHaveText(stepOf(walk.lab as LabId, 1), { timeout: WORKER_STEP_TIMEOUT });
  for (let step = 2; step <= n; step++) {
    await walk.nextStep();
    await expect(walk.stepCounter).toHaveText(stepOf(walk.lab as LabId, step), { timeout: WORKER_STEP_TIMEOUT });
  }
}

const DRIVE: Record<ScreenId, Drive> = {
  'fenced-rejected': async (_page, lab) => {
    const fenced = lab('fenced');
    await walkTo(fenced, 6);
    await expect(fenced.narration).toContainText('rejected as stale', { timeout: WORKER_STEP_TIMEOUT });
    await expect(fenced.writeMark('A', 'rejected')).toHaveCount(1, { timeout: WORKER_STEP_TIMEOUT });
    await expect(fenced.checkerOk).toBeVisible();
    return { fromTopOf: fenced.checkerOk };
  },
  'fenced-presenter': async (page) => {
    const presenter = new PresenterPage(page, 'fenced');
    await presenter.gotoPresenter();
    await expect(presenter.stepCounter).toHaveText(stepOf('fenced', 6), { timeout: WORKER_STEP_TIMEOUT });
    await expect(presenter.narration).toContainText('rejected as stale', { timeout: WORKER_STEP_TIMEOUT });
    await expect(presenter.writeMark('A', 'rejected')).toHaveCount(1, { timeout: WORKER_STEP_TIMEOUT });
    return {};
  },
  'no-fencing-lost-update': async (_page, lab) => {
    const noFencing = lab('no-fencing');
    await walkTo(noFencing, 6);
    await expect(noFencing.narration).toContainText('a lost update', { timeout: WORKER_STEP_TIMEOUT });
    await expect(noFencing.checkerViolations).toHaveText('✗ Checker: 1 violation', { timeout: WORKER_STEP_TIMEOUT });
    return { fromTopOf: noFencing.checkerViolations };
  },
  home: async (page) => {
    await page.goto('/');
    await expect(page.getByRole('heading', { level: 1, name: 'Fencing Lab' })).toBeVisible();
    await expect(page.getByRole('region', { name: 'leases' }).getByRole('cell', { name: 'lab/fenced' })).toBeVisible();
    return {};
  },
};

test.use({ viewport: SCREEN_SIZE, colorScheme: 'light' });

test('the screens the docs show, taken as a trainer sees them', async ({ page, lab }) => {
  test.setTimeout(300_000);
  for (const { id, file } of SCREENS) {
    await test.step(id, async () => {
      const shot = await DRIVE[id](page, lab);
      // Nothing hovered or focused by the last click, and the canvas's last frame painted.
      await page.mouse.move(0, 0);
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
      const top = shot.fromTopOf ? Math.max(0, ((await shot.fromTopOf.boundingBox())?.y ?? 0) - 12) : 0;
      const clip = { x: 0, y: top, width: SCREEN_SIZE.width, height: SCREEN_SIZE.height - top };
      await page.screenshot({ path: file, clip, scale: 'css', animations: 'disabled', caret: 'hide' });
    });
  }
});
