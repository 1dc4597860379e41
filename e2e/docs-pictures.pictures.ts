import type { Locator, Page } from '@playwright/test';
import type { FailoverStepId } from '../lib/model/failover/failover-walkthrough';
import type { LabId } from '../lib/model/lab/lab-kinds';
import { SCREEN_SIZE, SCREENS, type ScreenId, screenStep } from '../lib/testing/docs-screens';
import { resetFailoverLab, runFailoverSteps } from './failover-walk';
import { expect, test } from './fixtures';
import { GuardPage } from './pages/guard-page';
import type { LabPage } from './pages/lab-page';
import { PresenterPage } from './pages/presenter-page';
import { SessionPage } from './pages/session-page';
import { WallPage } from './pages/wall-page';
import { failoverStepHeadingOf, failoverStepNumberOf, stepNumberOf, stepOf } from './steps';

/*
 * The docs' pictures of the real screens (`npm run docs:pictures`, playwright.pictures.config.ts): the
 * trainer's browser walks the fenced and the no-fencing walkthroughs with real workers and takes each
 * screen of lib/testing/docs-screens.ts when it shows what the docs say it shows. A screen the list
 * names and this file cannot take does not compile (DRIVE is a record of every ScreenId).
 */

/**
 * What to take of the window: all of it, or from a panel's top down (the lab bar above it left out), and
 * to the window's bottom or to the lowest bottom of some panels (a picture that would weigh too much);
 * or the window scrolled down to a panel's top (a panel low on its page, with what is beside it).
 */
type Shot = { fromTopOf?: Locator; toBottomOf?: Locator[]; scrolledTo?: Locator };
type Drive = (page: Page, lab: (id: LabId) => LabPage) => Promise<Shot>;

/**
 * A step's wait in this run: real workers on a machine that may be busy with other work. Generous, as
 * only the pictures wait on it (`npm test` does not run this file).
 */
const PICTURE_STEP_TIMEOUT = 60_000;

/** The walkthrough step a screen shows: its `at` in lib/testing/docs-screens.ts. */
function shownAt(id: ScreenId): { lab: LabId; step: string } {
  const at = screenStep(id);
  if (!at) throw new Error(`${id} names no walkthrough step (its at in lib/testing/docs-screens.ts)`);
  return at;
}

/** The number of the walkthrough step a screen shows. */
const shownStep = (id: ScreenId) => stepNumberOf(shownAt(id).lab, shownAt(id).step);

/** The lab whose walkthrough a screen shows. */
const screenLab = (id: ScreenId) => shownAt(id).lab;

/** Runs a walkthrough from its reset to step `n`. */
async function walkTo(walk: LabPage, n: number) {
  await walk.gotoWalkthrough();
  await walk.startOver.click();
  await expect(walk.stepCounter).toHaveText(stepOf(walk.kind, 1), { timeout: PICTURE_STEP_TIMEOUT });
  for (let step = 2; step <= n; step++) {
    await expect(walk.next).toBeEnabled({ timeout: PICTURE_STEP_TIMEOUT });
    await walk.next.click();
    await expect(walk.stepCounter).toHaveText(stepOf(walk.kind, step), { timeout: PICTURE_STEP_TIMEOUT });
  }
}

/**
 * A lab's walkthrough at the step that shows its lesson (the screen's `at`, found in the lab's walkthrough
 * definition), once its narration says `says` and the checker gives its verdict: the picture from the
 * checker's top down to the timeline's bottom or the walkthrough's buttons.
 */
function lessonStep(id: ScreenId, says: string | RegExp, checker: 'holds' | 'breaks'): Drive {
  return async (_page, lab) => {
    const walk = lab(screenLab(id));
    await walkTo(walk, shownStep(id));
    await expect(walk.narration).toContainText(says, { timeout: PICTURE_STEP_TIMEOUT });
    const verdict = checker === 'holds' ? walk.checkerOk : walk.checkerViolations;
    await expect(verdict).toBeVisible({ timeout: PICTURE_STEP_TIMEOUT });
    // To the timeline's bottom lane or the walkthrough's buttons, whichever is lower: the legend and the
    // panels below left out, so that a long list of violations does not make the picture too heavy.
    const drawing = walk.timeline.getByRole('group', { name: /^Timeline of / });
    return { fromTopOf: verdict, toBottomOf: [drawing, walk.startOver] };
  };
}

/** The trainee of the your-guard pictures, and the start of every guard statement they try. */
const GUARD_TRAINEE = 'Ada';
const GUARD_SET = 'UPDATE guarded_row SET value = $1, last_token = $2 WHERE id = $3';

const DRIVE: Record<ScreenId, Drive> = {
  'fenced-rejected': async (_page, lab) => {
    const fenced = lab('fenced');
    await walkTo(fenced, shownStep('fenced-rejected'));
    await expect(fenced.narration).toContainText('rejected as stale', { timeout: PICTURE_STEP_TIMEOUT });
    await expect(fenced.writeMark('A', 'rejected')).toHaveCount(1, { timeout: PICTURE_STEP_TIMEOUT });
    await expect(fenced.checkerOk).toBeVisible();
    return { fromTopOf: fenced.checkerOk };
  },
  'fenced-presenter': async (page) => {
    const presenter = new PresenterPage(page, 'fenced');
    await presenter.gotoPresenter();
    await expect(presenter.stepCounter).toHaveText(stepOf('fenced', shownStep('fenced-presenter')), {
      timeout: PICTURE_STEP_TIMEOUT,
    });
    await expect(presenter.narration).toContainText('rejected as stale', { timeout: PICTURE_STEP_TIMEOUT });
    await expect(presenter.writeMark('A', 'rejected')).toHaveCount(1, { timeout: PICTURE_STEP_TIMEOUT });
    return {};
  },
  'no-fencing-lost-update': async (_page, lab) => {
    const noFencing = lab('no-fencing');
    await walkTo(noFencing, shownStep('no-fencing-lost-update'));
    await expect(noFencing.narration).toContainText('a lost update', { timeout: PICTURE_STEP_TIMEOUT });
    await expect(noFencing.checkerViolations).toHaveText('✗ Checker: 1 violation', { timeout: PICTURE_STEP_TIMEOUT });
    return { fromTopOf: noFencing.checkerViolations };
  },
  'read-check-write-lost-update': lessonStep('read-check-write-lost-update', 'a lost update', 'breaks'),
  'token-as-text-b-refused': lessonStep(
    'token-as-text-b-refused',
    "it never held B's value, which was refused",
    'breaks',
  ),
  'per-process-counter-lost-update': lessonStep('per-process-counter-lost-update', 'a lost update', 'breaks'),
  'same-token-takeover-lost-update': lessonStep('same-token-takeover-lost-update', 'a lost update', 'breaks'),
  'bypass-lost-update': lessonStep('bypass-lost-update', 'catch-up path', 'breaks'),
  'delayed-packet-unfenced-lost-update': lessonStep('delayed-packet-unfenced-lost-update', 'a lost update', 'breaks'),
  'drifting-clock-lost-update': lessonStep('drifting-clock-lost-update', 'a lost update', 'breaks'),
  'delayed-packet-rejected': lessonStep('delayed-packet-rejected', 'when it arrives does not matter', 'holds'),
  'drifting-clock-fenced-rejected': lessonStep(
    'drifting-clock-fenced-rejected',
    'fencing does not ask what A believes',
    'holds',
  ),
  'your-guard-broken': async (page) => {
    const opened = await new SessionPage(page).openPrivateLab('Your guard');
    const guard = new GuardPage(page, opened.lab);
    await guard.name.fill(GUARD_TRAINEE);
    await guard.submit(`${GUARD_SET} AND last_token <= $2`, /^✓ Passed: your guard held/);
    await guard.name.fill(GUARD_TRAINEE);
    await guard.submit(`${GUARD_SET} AND last_token::text <= $2::text`, /✗ Broken/);
    await expect(guard.counterexample).toBeVisible();
    // From the trainee's name to the editor's end, beside the timeline of the attack.
    return {
      scrolledTo: guard.editor,
      fromTopOf: guard.editor.getByText('Your name (on the class wall)'),
      toBottomOf: [guard.editor],
    };
  },
  'class-wall': async (page) => {
    const wall = new WallPage(page);
    await wall.goto();
    const rows = wall.rowsOf(GUARD_TRAINEE);
    await expect(rows.first()).toContainText('✗', { timeout: PICTURE_STEP_TIMEOUT });
    await expect(rows.nth(1)).toContainText('✓ your guard held against the pause story');
    return {};
  },
  'explore-shortest-break': async (page) => {
    await page.goto('/labs/no-fencing/explore?holders=2&writes=2');
    await expect(page.getByTestId('explore-verdict')).toContainText(/breaks in [\d,]+ of [\d,]+ interleavings/, {
      timeout: 3 * PICTURE_STEP_TIMEOUT,
    });
    await page.getByRole('link', { name: 'Show me the shortest way to break it' }).click();
    await expect(page.getByTestId('explore-violation')).toBeVisible({ timeout: PICTURE_STEP_TIMEOUT });
    return {};
  },
  'failover-lost-write': async (page) => {
    await page.goto('/labs/failover');
    await resetFailoverLab(page, PICTURE_STEP_TIMEOUT);
    // The screen's step, by id (failoverStepNumberOf throws on an id the failover walkthrough has not).
    const shown = shownAt('failover-lost-write').step as FailoverStepId;
    const verdictStep = failoverStepNumberOf(shown);
    await runFailoverSteps(page, 1, verdictStep - 1, PICTURE_STEP_TIMEOUT);
    await page.getByRole('button', { name: `Show step ${verdictStep}`, exact: true }).click();
    await expect(page.getByRole('heading', { name: failoverStepHeadingOf(shown) })).toBeVisible();
    const verdict = page.getByRole('alert').filter({ hasText: /^✗ Checker: \d+ violations?/ });
    await expect(verdict).toBeVisible({ timeout: PICTURE_STEP_TIMEOUT });
    // The banner's findings are long: the window scrolled to the timeline, the walkthrough's verdict beside
    // it, down to the lower of the two (the servers' table below left out: a picture that would weigh too much).
    const timeline = page.getByRole('region', { name: /^Timeline/ });
    const told = page.getByRole('region', { name: /^Walkthrough/ }).getByText('The lab has done this step.');
    return { scrolledTo: timeline, toBottomOf: [timeline, told] };
  },
  home: async (page) => {
    await page.goto('/');
    await expect(page.getByRole('heading', { level: 1, name: 'Fencing Lab' })).toBeVisible();
    await expect(page.getByRole('region', { name: 'leases' }).getByRole('cell', { name: 'lab/fenced' })).toBeVisible();
    return {};
  },
};

test.use({ viewport: SCREEN_SIZE, colorScheme: 'light' });

/**
 * The screens to take: every one, or those `DOCS_SCREENS` names (ids, comma-separated), in the list's
 * order. A screen that goes on from another (the presenter and the home page from the fenced walkthrough,
 * the class wall from the your-guard lab) needs that one named too.
 */
function screensToTake() {
  const named = process.env.DOCS_SCREENS?.split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  if (!named?.length) return SCREENS;
  const unknown = named.filter((id) => !SCREENS.some((screen) => screen.id === id));
  if (unknown.length > 0) throw new Error(`DOCS_SCREENS: no such screen: ${unknown.join(', ')}`);
  return SCREENS.filter(({ id }) => named.includes(id));
}

test('the screens the docs show, taken as a trainer sees them', async ({ page, lab }) => {
  const screens = screensToTake();
  test.setTimeout(180_000 * screens.length);
  for (const { id, file } of screens) {
    await test.step(id, async () => {
      const shot = await DRIVE[id](page, lab);
      // Nothing hovered or focused by the last click, and the canvas's last frame painted.
      await page.mouse.move(0, 0);
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
      // From the page's top (a step's notice may have scrolled the page down), or from a panel's.
      if (shot.scrolledTo) {
        await shot.scrolledTo.evaluate((panel) =>
          window.scrollTo(0, panel.getBoundingClientRect().top + window.scrollY - 12),
        );
      } else {
        await page.evaluate(() => window.scrollTo(0, 0));
      }
      const top = shot.fromTopOf ? Math.max(0, ((await shot.fromTopOf.boundingBox())?.y ?? 0) - 12) : 0;
      const boxes = await Promise.all((shot.toBottomOf ?? []).map((panel) => panel.boundingBox()));
      const bottoms = boxes.map((box) => (box ? box.y + box.height + 12 : SCREEN_SIZE.height));
      const end = bottoms.length > 0 ? Math.min(SCREEN_SIZE.height, Math.max(...bottoms)) : SCREEN_SIZE.height;
      const clip = { x: 0, y: top, width: SCREEN_SIZE.width, height: end - top };
      await page.screenshot({ path: file, clip, scale: 'css', animations: 'disabled', caret: 'hide' });
    });
  }
});
