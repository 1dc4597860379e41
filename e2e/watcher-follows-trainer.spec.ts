import type { Page } from '@playwright/test';
import pg from 'pg';
import type { WireEvent } from '../lib/model/core/wire';
import type { LabId } from '../lib/model/lab/lab-kinds';
import { falseClaims, rowAfter } from '../lib/model/walkthrough/narration-oracle';
import { walkthroughFor } from '../lib/model/walkthrough/walkthrough';
import { eventsToReach, walkthroughPosition } from '../lib/model/walkthrough/walkthrough-progress';
import { appDatabaseUrl } from './app-database';
import { expect, test } from './fixtures';
import { LabPage, WORKER_STEP_TIMEOUT } from './pages/lab-page';
import { PresenterPage } from './pages/presenter-page';

/*
 * A watcher shows the step the trainer shows, never one ahead: over a whole walkthrough, read again
 * and again while each step runs and for a while after (a lease runs out by itself meanwhile, and the
 * last step needs no action), a watcher's "Step N of M" is never greater than the trainer's, and
 * becomes equal; the narration oracle holds every sentence it says to the lab's events at that
 * moment, and every step up to the one it narrates is done in them. Gone back two steps, the
 * watchers tell that step as of its moment, every sentence true of the events up to it.
 */

/** Longer than the walkthrough's lease (3 s): a step that completes by itself does so while we look. */
const HOLD_MS = 4_500;

/** What a narration panel shows, read in one go (its counter, title and words belong together). */
type Panel = { step: number; title: string; text: string };

async function readPanel(page: Page): Promise<Panel> {
  return page.getByTestId('narration').evaluate((narration) => {
    const section = narration.closest('section');
    const counter = section?.querySelector('p')?.textContent ?? '';
    return {
      step: Number(counter.match(/^Step (\d+) of \d+$/)?.[1] ?? 0),
      title: section?.querySelector('h2')?.textContent ?? '',
      text: narration.textContent ?? '',
    };
  });
}

/** The lab's events as the database holds them now. */
async function eventsNow(db: pg.Client, lab: string): Promise<WireEvent[]> {
  const { rows } = await db.query<{
    id: string;
    at: Date;
    actor: string;
    kind: WireEvent['kind'];
    token: string | null;
    stored_token: string | null;
    detail: Record<string, unknown> | null;
  }>('SELECT id, at, actor, kind, token, stored_token, detail FROM events WHERE lab = $1 ORDER BY id', [lab]);
  return rows.map((e) => ({
    id: Number(e.id),
    lab,
    at: e.at.getTime(),
    actor: e.actor,
    kind: e.kind,
    ...(e.token === null ? {} : { token: Number(e.token) }),
    ...(e.stored_token === null ? {} : { storedToken: Number(e.stored_token) }),
    detail: e.detail ?? {},
  }));
}

/**
 * A watcher's narration claims nothing the events do not hold: every step up to the one it narrates
 * is done in them, and the narration oracle (lib/model/walkthrough/narration-oracle.ts: tokens,
 * values, who, accepted or rejected, newer or older, durations, counts) finds every sentence true of
 * the events as the page had them when it was read: a prefix of the database's, from the step's
 * moment on (the page read first, the database after, the feed in id order).
 */
function expectBackedByEvents(lab: LabId, panel: Panel, events: readonly WireEvent[], who: string) {
  if (panel.step === 0 || /^(Waiting for|Not run yet)/.test(panel.text)) return;
  const steps = walkthroughFor(lab);
  const position = walkthroughPosition(steps, events, lab);
  const reached = position.kind === 'at' ? position.step + 1 : 0;
  expect(
    reached,
    `${who} narrates step ${panel.step} ("${panel.text}"); the events reach step ${reached}`,
  ).toBeGreaterThanOrEqual(panel.step);
  const from = eventsToReach(steps, events, panel.step - 1, lab);
  for (let n = events.length; n >= from; n--) {
    const prefix = events.slice(0, n);
    if (falseClaims(panel.text, prefix, rowAfter(prefix)).length === 0) return;
  }
  expect(falseClaims(panel.text, events, rowAfter(events)), `${who}, step ${panel.step}: "${panel.text}"`).toEqual([]);
}

/** A step gone back to is told as of its moment: every sentence true of the events up to it, exactly. */
function expectTrueAtItsMoment(lab: LabId, panel: Panel, events: readonly WireEvent[], who: string) {
  const steps = walkthroughFor(lab);
  const prefix = events.slice(0, eventsToReach(steps, events, panel.step - 1, lab));
  expect(
    falseClaims(panel.text, prefix, rowAfter(prefix)),
    `${who}, back at step ${panel.step}: "${panel.text}"`,
  ).toEqual([]);
}

async function walkAndWatch(
  options: { lab: LabId; trainer: LabPage; watchers: Array<{ name: string; page: Page }> },
  db: pg.Client,
) {
  const { lab, trainer, watchers } = options;
  const steps = walkthroughFor(lab);
  const trainerIdle = trainer.page.getByRole('status').filter({ hasText: /^Waiting for/ });

  /** One look: the watchers, then the database, then the trainer (who only moves forward here). */
  const look = async () => {
    const seen = [];
    for (const watcher of watchers) seen.push({ ...watcher, panel: await readPanel(watcher.page) });
    const events = await eventsNow(db, lab);
    const shown = (await readPanel(trainer.page)).step;
    for (const { name, panel } of seen) {
      expect(panel.step, `${name} shows "${panel.title}" while the trainer shows step ${shown}`).toBeLessThanOrEqual(
        shown,
      );
      expectBackedByEvents(lab, panel, events, name);
    }
    return { shown, watching: seen.map((s) => s.panel.step) };
  };

  for (let step = 1; step <= steps.length; step++) {
    // → (the trainer's Next) runs step 1 first, the reset: the lab is off script (Z runs in free play).
    await expect(trainer.next).toBeEnabled({ timeout: WORKER_STEP_TIMEOUT });
    await trainer.page.keyboard.press('ArrowRight');
    // Generous on a loaded machine: it decides only when a failing walk gives up.
    const deadline = Date.now() + 3 * WORKER_STEP_TIMEOUT;
    let equalSince: number | undefined;
    for (;;) {
      const { shown, watching } = await look();
      const settled = shown === step && watching.every((w) => w === step) && (await trainerIdle.count()) === 0;
      if (!settled) equalSince = undefined;
      else equalSince ??= Date.now();
      if (equalSince !== undefined && Date.now() - equalSince >= HOLD_MS) break;
      if (equalSince === undefined)
        expect(
          Date.now(),
          `step ${step}: the trainer shows ${shown}, the watchers ${watching.join(', ')}`,
        ).toBeLessThan(deadline);
    }
  }

  // Back (← ←): the watchers follow the trainer there too, and tell the step as of its moment.
  await trainer.page.keyboard.press('ArrowLeft');
  await expect
    .poll(async () => (await readPanel(trainer.page)).step, { timeout: WORKER_STEP_TIMEOUT })
    .toBe(steps.length - 1);
  await trainer.page.keyboard.press('ArrowLeft');
  for (const { name, page } of watchers) {
    await expect
      .poll(async () => (await readPanel(page)).step, { message: name, timeout: WORKER_STEP_TIMEOUT })
      .toBe(steps.length - 2);
    await expect(page.getByTestId('narration')).not.toHaveText(/^(Waiting for|Not run yet)/, {
      timeout: WORKER_STEP_TIMEOUT,
    });
    expectTrueAtItsMoment(lab, await readPanel(page), await eventsNow(db, lab), name);
  }
}

for (const { lab, where } of [
  { lab: 'fenced', where: 'walkthrough' },
  { lab: 'per-process-counter', where: 'presenter' },
] as const) {
  test(`a watcher of the ${lab} walkthrough (the trainer on its ${where} page) shows the trainer's step, never one ahead, and nothing the events do not hold`, async ({
    page,
    browser,
    lab: labPage,
  }) => {
    test.setTimeout(480_000);
    const freePlay = labPage(lab);
    await freePlay.gotoFreePlay();
    await freePlay.reset();
    await freePlay.startWorker('Z', 3);
    await freePlay.waitForLeaseHolder('Z');
    const trainer = where === 'walkthrough' ? new LabPage(page, lab) : new PresenterPage(page, lab);
    if (trainer instanceof PresenterPage) await trainer.gotoPresenter();
    else await trainer.gotoWalkthrough();

    const context = await browser.newContext();
    const db = new pg.Client({ connectionString: await appDatabaseUrl() });
    await db.connect();
    try {
      const onWalkthrough = new LabPage(await context.newPage(), lab);
      const onPresenter = new PresenterPage(await context.newPage(), lab);
      await onWalkthrough.gotoWalkthrough();
      await onPresenter.gotoPresenter();
      await expect(onPresenter.driveStatus).toHaveText('Watching');
      // Nothing shown: the watchers wait for the trainer.
      for (const watcher of [onWalkthrough, onPresenter]) {
        await expect(watcher.page.getByRole('heading', { name: 'Waiting for the trainer' })).toBeVisible();
      }
      if (trainer instanceof PresenterPage) await expect(trainer.driveStatus).toHaveText(/you drive/);

      await walkAndWatch(
        {
          lab,
          trainer,
          watchers: [
            { name: "the watcher's walkthrough", page: onWalkthrough.page },
            { name: "the watcher's presenter", page: onPresenter.page },
          ],
        },
        db,
      );

      // A reload shows the same step; a reset clears it.
      await onWalkthrough.page.reload();
      const steps = walkthroughFor(lab).length;
      // The whole history is read again first: generous on a loaded machine (seen over 20 s once).
      await expect(onWalkthrough.stepCounter).toHaveText(`Step ${steps - 2} of ${steps}`, {
        timeout: 3 * WORKER_STEP_TIMEOUT,
      });
      await freePlay.gotoFreePlay();
      await freePlay.reset();
      for (const watcher of [onWalkthrough, onPresenter]) {
        await expect(watcher.page.getByRole('heading', { name: 'Waiting for the trainer' })).toBeVisible({
          timeout: WORKER_STEP_TIMEOUT,
        });
      }
    } finally {
      await db.end();
      await context.close();
    }
  });
}
