import type { Page } from '@playwright/test';
import { walkthroughFor } from '../lib/model/walkthrough/walkthrough';
import { walkthroughPosition } from '../lib/model/walkthrough/walkthrough-progress';
import { seriousViolations } from './axe';
import { expect, test } from './fixtures';
import { type LabState, readLabState } from './lab-state';
import { LabPage, WORKER_STEP_TIMEOUT } from './pages/lab-page';
import { PresenterPage } from './pages/presenter-page';
import { stepOf as counterOf, stepNumberOf } from './steps';

const steps = walkthroughFor('fenced');

/** The step (from 1) the lab's history in the database says the walkthrough is at. */
function stepOf(state: LabState): number {
  const position = walkthroughPosition(steps, state.events);
  expect(position.kind, 'the lab follows the walkthrough').toBe('at');
  return position.kind === 'at' ? position.step + 1 : 0;
}

/** What a step's action does to a lab, and so what no page load may do: a reset deletes events. */
const DRIVEN_KINDS = new Set(['worker_started', 'worker_stopped', 'worker_restarted', 'pause_started', 'pause_ended']);

/**
 * Nothing a page load could have done happened between `before` and `after`: every event is still
 * there, no worker was started, stopped, frozen or resumed, the row and the lease keep their
 * tokens, and the same workers run. (The running workers go on writing and renewing meanwhile.)
 */
function expectUnchanged(before: LabState, after: LabState) {
  const ids = new Set(after.events.map((e) => e.id));
  expect(before.events.filter((e) => !ids.has(e.id))).toEqual([]);
  const last = before.events.at(-1)?.id ?? 0;
  const added = after.events.filter((e) => e.id > last);
  expect(added.filter((e) => DRIVEN_KINDS.has(e.kind))).toEqual([]);
  expect(after.row?.lastToken).toBe(before.row?.lastToken);
  expect(after.lease).toEqual(before.lease);
  expect(after.workers).toEqual(before.workers);
}

test('reloading the walkthrough and presenter pages at every step changes nothing, and each shows the step the trainer showed', async ({
  page,
  browser,
  baseURL,
  lab,
}) => {
  test.setTimeout(240_000);
  const base = baseURL ?? '';
  const fenced = lab('fenced');
  const presenter = new PresenterPage(page, 'fenced');
  const context = await browser.newContext();
  try {
    const watcherPage = await context.newPage();
    const watcher = new PresenterPage(watcherPage, 'fenced');

    /** Each page shows the step the trainer showed before the loads, which the lab records. */
    const expectShown = async (from: LabPage, trainers: number, what: string) => {
      expect(await from.shownStep(), what).toBe(trainers);
    };

    await fenced.gotoWalkthrough();
    // A reset mints the row a new token: wait for it, since a lab left empty by the spec before looks
    // reset already, and the page may show the reset's step before this reset has committed.
    const tokenBefore = (await readLabState(base, 'fenced')).row?.lastToken;
    await fenced.startOver.click();
    await fenced.expectStep('setup', 'The lab has been reset: no workers, no history.');
    await expect
      .poll(async () => (await readLabState(base, 'fenced')).row?.lastToken, { timeout: WORKER_STEP_TIMEOUT })
      .not.toBe(tokenBefore);
    let shown = stepNumberOf('fenced', 'setup');
    for (;;) {
      const before = await readLabState(base, 'fenced');
      const at = stepOf(before);
      expect(at).toBeGreaterThanOrEqual(shown);

      await page.reload();
      await expectShown(fenced, shown, `the trainer's walkthrough reloaded at step ${at}`);
      await presenter.gotoPresenter();
      await expectShown(presenter, shown, `the trainer's presenter opened at step ${at}`);
      await page.reload();
      await expectShown(presenter, shown, `the trainer's presenter reloaded at step ${at}`);
      expectUnchanged(before, await readLabState(base, 'fenced'));
      await watcher.gotoPresenter();
      await expect(watcher.driveStatus).toHaveText('Watching');
      await watcherPage.reload();
      await expectShown(watcher, shown, `a watcher's presenter reloaded at step ${at}`);
      await watcher.gotoWalkthrough();
      await watcherPage.reload();
      await expectShown(watcher, shown, `a watcher's walkthrough reloaded at step ${at}`);

      await fenced.gotoWalkthrough();
      shown = await fenced.shownStep();
      expectUnchanged(before, await readLabState(base, 'fenced'));
      if (shown === steps.length) break;
      // The next step, by a click: the one thing that drives the lab.
      await fenced.nextStep();
      await expect(fenced.stepCounter).toHaveText(counterOf('fenced', shown + 1), { timeout: WORKER_STEP_TIMEOUT });
      await expect(fenced.page.getByRole('status').filter({ hasText: /^Waiting for/ })).toHaveCount(0, {
        timeout: WORKER_STEP_TIMEOUT,
      });
      shown += 1;
    }
  } finally {
    await context.close();
  }
});

test('a deep link shows its step and runs nothing until its button is pressed; on a lab past it, it says so', async ({
  page,
  baseURL,
  lab,
}) => {
  test.setTimeout(120_000);
  const base = baseURL ?? '';
  const fenced = lab('fenced');
  await fenced.gotoFreePlay();
  await fenced.reset();

  const setup = stepNumberOf('fenced', 'setup');
  const takeover = stepNumberOf('fenced', 'b-takes-over');
  await fenced.gotoWalkthrough('b-takes-over');
  await expect(fenced.stepCounter).toHaveText(counterOf('fenced', 'b-takes-over'));
  await expect(fenced.page.getByRole('heading', { name: 'B takes over' })).toBeVisible();
  await expect(fenced.narration).toHaveText(
    'Not run yet. Worker B starts, takes the lease with a newer token, and writes.',
  );
  await expect(fenced.where).toHaveText(`The lab is at step ${setup}.`);
  await expect(fenced.runSteps).toHaveText(`Run steps ${setup + 1} to ${takeover}`);
  // The page is live (its feed delivered the lab), and still nothing ran.
  await expect(fenced.noHolderYet).toBeVisible();
  await expectNothingRan(page, base);
  // A step shown but not yet run: no serious or critical accessibility violation.
  expect(await seriousViolations(page)).toEqual([]);

  // The button is reachable from the keyboard; Enter on it runs the steps up to B's takeover for real.
  await focusByTab(page, fenced.runSteps);
  await page.keyboard.press('Enter');
  await fenced.expectStep(
    'b-takes-over',
    /^B took the lease with a newer token, \d+, .* B wrote "B-1" with token \d+: accepted\./,
  );
  await expect(fenced.runSteps).toHaveCount(0);
  await expect(page).toHaveURL(/\/labs\/fenced\/walkthrough$/);
  const atTakeover = await readLabState(base, 'fenced');
  // The position counts from 0.
  expect(walkthroughPosition(steps, atTakeover.events)).toMatchObject({ kind: 'at', step: takeover - 1 });

  // A deep link to an earlier step, in presenter mode: the lab is past it, and nothing runs.
  const presenter = new PresenterPage(page, 'fenced');
  await page.goto(`/labs/fenced/present?step=${stepNumberOf('fenced', 'a-freezes')}`);
  await presenter.expectStep('a-freezes', 'A checked its lease');
  await expect(presenter.where).toHaveText(`The lab is past this step already: it is at step ${takeover}.`);
  await expect(presenter.runSteps).toHaveCount(0);
  expectUnchanged(atTakeover, await readLabState(base, 'fenced'));

  // A deep link ahead, in presenter mode: → runs the steps up to it, as the button would.
  await page.goto(`/labs/fenced/present?step=${steps.length}`);
  await expect(presenter.where).toHaveText(`The lab is at step ${takeover}.`);
  await expect(presenter.runSteps).toHaveText(`Run steps ${takeover + 1} to ${steps.length}`);
  await page.keyboard.press('ArrowRight');
  await presenter.expectStep(steps.length, "The row holds B's value");
  await expect(presenter.where).toHaveCount(0);
});

async function expectNothingRan(page: Page, base: string) {
  const state = await readLabState(base, 'fenced');
  expect(state.events).toEqual([]);
  expect(state.lease).toBeUndefined();
  expect(state.workers).toEqual([]);
  await expect(new LabPage(page, 'fenced').nobodyHoldsTheLease).toBeVisible();
}

/**
 * Tabs until `target` has the focus, the way a keyboard user gets to it: one press at a time, each
 * followed by a look (a retry with back-off ran out of time before the page's tab stops did).
 */
async function focusByTab(page: Page, target: ReturnType<Page['getByRole']>) {
  await expect(target).toBeEnabled();
  for (let presses = 0; presses < MAX_TAB_PRESSES; presses++) {
    await page.keyboard.press('Tab');
    if (await target.evaluate((element) => element === document.activeElement)) break;
  }
  await expect(target).toBeFocused();
}

/** More tab stops than the page has before the walkthrough's button (the labs' bar lists every lab). */
const MAX_TAB_PRESSES = 120;
