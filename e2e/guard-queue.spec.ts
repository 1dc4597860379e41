import type { Locator } from '@playwright/test';
import { expect, test } from './fixtures';
import { ATTACK_TIMEOUT, GuardPage } from './pages/guard-page';
import { WORKER_STEP_TIMEOUT } from './pages/lab-page';
import { SessionPage } from './pages/session-page';
import { WallPage } from './pages/wall-page';

/*
 * Guard attacks as jobs in the room's line (issue 24): three trainees submit at once; the server runs
 * two attacks at a time (FENCING_LAB_MAX_GUARD_ATTACKS in playwright.config.ts), so each sees its
 * place in line or that it is being attacked, with an estimate, then its verdict, asked after by the
 * editor. The trainer's wall shows the three rows as they move through the line, and above them how
 * many wait and how many are being attacked.
 */

const SET = 'UPDATE guarded_row SET value = $1, last_token = $2 WHERE id = $3';
const PLACE = /^⏳ Your guard is (\d+(st|nd|rd|th) in line, about \d+ s|being attacked now, about \d+ s left)$/;

test('three trainees submit at once: each sees its place in line, then its verdict; the trainer’s wall shows the line', async ({
  page,
  browser,
}) => {
  test.setTimeout(4 * ATTACK_TIMEOUT);
  const run = Date.now() % 1_000_000;
  // Two guards that hold (the longest attacks, 10-13 s) go first; the third waits in line behind them.
  const trainees = [
    { name: `Ann ${run}`, statement: `${SET} AND last_token <= $2`, verdict: /^✓ Passed: your guard held/, wall: '✓ ' },
    { name: `Ben ${run}`, statement: `${SET} AND $2 >= last_token`, verdict: /^✓ Passed: your guard held/, wall: '✓ ' },
    { name: `Cy ${run}`, statement: SET, verdict: /^✗ Broken: your guard let token 9 overwrite token 10/, wall: '✗ ' },
  ];
  const wall = new WallPage(page);
  await wall.goto();
  const contexts = await Promise.all(trainees.map(() => browser.newContext()));
  try {
    // One after the other: three opened at once took over the 20 s a step may take at a load of 24.
    const guards: GuardPage[] = [];
    for (const [i, context] of contexts.entries()) {
      const opened = await new SessionPage(await context.newPage()).openPrivateLab('Your guard');
      const guard = new GuardPage(opened.page, opened.lab);
      await guard.name.fill(trainees[i]?.name ?? '');
      await guard.statement.fill(trainees[i]?.statement ?? '');
      guards.push(guard);
    }
    // At once: each Submit as soon as the one before it is answered (a second or so), in a known order.
    for (const guard of guards) {
      await guard.attack.click();
      await expect(guard.queue).toBeVisible();
    }

    // Each sees where it stands, hears it in the live region, keeps its statement, and cannot submit again yet.
    for (const [i, guard] of guards.entries()) {
      await expect(guard.queue.getByText(PLACE)).toBeVisible();
      await expect(guard.verdict).toContainText(/Your guard is (\d+(st|nd|rd|th) in line|being attacked now)/);
      await expect(guard.statement).toHaveValue(trainees[i]?.statement ?? '');
      await expect(guard.attack).toBeDisabled();
      await expect(guard.attack).toHaveAccessibleDescription(/Attack my guard is off until its verdict is in/);
    }

    // Two attacked at a time: the first two are attacked, the third waits in line, on the trainer's wall
    // (the three rows, and how many wait and are attacked) and in the third trainee's editor.
    const [ann, ben, cy] = trainees.map(({ name }) => wall.rowsOf(name)) as [Locator, Locator, Locator];
    for (const row of [ann, ben, cy]) await expect(row).toHaveCount(1);
    await expect(wall.queueLine).toHaveText(/^In line: [1-9]\d* · being attacked: [1-9]\d*$/, {
      timeout: ATTACK_TIMEOUT,
    });
    // (A guard left in line by an earlier run of the same database may go first.)
    await expect(ann).toContainText('⏳ being attacked', { timeout: ATTACK_TIMEOUT });
    await expect(ben).toContainText('⏳ being attacked', { timeout: ATTACK_TIMEOUT });
    await expect(cy).toContainText('⏳ in line');
    const waiting = guards[2] as GuardPage;
    await expect(waiting.queue).toContainText(/Your guard is \d+(st|nd|rd|th) in line, about \d+ s/);
    // A screen reader hears the words, not the hourglass ("hourglass not done"), on the wall and in the editor
    // (read once each: by now Cy's guard may be attacked already, and its editor's place has moved on).
    const heardOnWall = await cy.ariaSnapshot();
    expect(heardOnWall).toMatch(/in line|being attacked/);
    expect(heardOnWall).not.toContain('⏳');
    const heardInEditor = await waiting.queue.ariaSnapshot();
    expect(heardInEditor).toMatch(/Your guard is (\d+(st|nd|rd|th) in line|being attacked now)/);
    expect(heardInEditor).not.toContain('⏳');
    await expect(waiting.verdict).toContainText(/Your guard is \d+(st|nd|rd|th) in line, about \d+ s/);

    // Reloaded, its editor waits again (its last attempt is still in line), until it is attacked: the
    // live region says so once its place changes.
    await waiting.gotoFreePlay();
    await expect(waiting.queue).toContainText(/Your guard is (\d+(st|nd|rd|th) )?(in line|being attacked)/, {
      timeout: WORKER_STEP_TIMEOUT,
    });
    await expect(waiting.attack).toBeDisabled();
    await expect(waiting.queue).toContainText(/being attacked now, about \d+ s left/, { timeout: ATTACK_TIMEOUT });
    await expect(waiting.verdict).toContainText(/Your guard is being attacked now, about \d+ s left/);
    // The network gone, the editor says it is reconnecting and goes on asking once it is back.
    await waiting.page.context().setOffline(true);
    await expect(waiting.queue).toContainText('Reconnecting: the server did not answer');
    await waiting.page.context().setOffline(false);

    // Then each its verdict, and Attack my guard again.
    for (const [i, guard] of guards.entries()) {
      await expect(guard.verdict, trainees[i]?.name).toContainText(trainees[i]?.verdict ?? '', {
        timeout: ATTACK_TIMEOUT,
      });
      await expect(guard.queue).toHaveCount(0);
      await expect(guard.attack).toBeEnabled();
    }
    // The wall replaced each waiting row with its verdict, and nothing waits any more.
    for (const { name, wall: mark } of trainees) {
      await expect(wall.rowsOf(name)).toHaveCount(1);
      await expect(wall.rowsOf(name).getByRole('cell').nth(2)).toHaveText(new RegExp(`^${mark}your guard `));
    }
    await expect(wall.queueLine).toHaveText('In line: 0 · being attacked: 0');
  } finally {
    for (const context of contexts) await context.close();
  }
});
