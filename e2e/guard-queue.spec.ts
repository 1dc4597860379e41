import { expect, test } from './fixtures';
import { ATTACK_TIMEOUT, GuardPage } from './pages/guard-page';
import { SessionPage } from './pages/session-page';
import { WallPage } from './pages/wall-page';

/*
 * Guard attacks as jobs in the room's line (issue 24): three trainees submit at once; the server runs
 * two attacks at a time, so each sees its place in line or that it is being attacked, with an estimate,
 * then its verdict, asked after by the editor. The trainer's wall shows the three rows as they move
 * through the line, and above them how many wait and how many are being attacked.
 */

const SET = 'UPDATE guarded_row SET value = $1, last_token = $2 WHERE id = $3';
const PLACE = /^⏳ Your guard is (\d+(st|nd|rd|th) in line, about \d+ s|being attacked now, about \d+ s left)$/;

test('three trainees submit at once: each sees its place in line, then its verdict; the trainer’s wall shows the line', async ({
  page,
  browser,
}) => {
  test.setTimeout(4 * ATTACK_TIMEOUT);
  const run = Date.now() % 1_000_000;
  const trainees = [
    { name: `Ann ${run}`, statement: `${SET} AND last_token <= $2`, verdict: /^✓ Passed: your guard held/, wall: '✓ ' },
    { name: `Ben ${run}`, statement: SET, verdict: /^✗ Broken: your guard let token 9 overwrite token 10/, wall: '✗ ' },
    { name: `Cy ${run}`, statement: `${SET} AND $2 >= last_token`, verdict: /^✓ Passed: your guard held/, wall: '✓ ' },
  ];
  const wall = new WallPage(page);
  await wall.goto();
  const contexts = await Promise.all(trainees.map(() => browser.newContext()));
  try {
    const guards = await Promise.all(
      contexts.map(async (context, i) => {
        const opened = await new SessionPage(await context.newPage()).openPrivateLab('Your guard');
        const guard = new GuardPage(opened.page, opened.lab);
        await guard.name.fill(trainees[i]?.name ?? '');
        await guard.statement.fill(trainees[i]?.statement ?? '');
        return guard;
      }),
    );
    await Promise.all(guards.map((guard) => guard.attack.click()));

    // Each sees where it stands, hears it in the live region, keeps its statement, and cannot submit again yet.
    for (const [i, guard] of guards.entries()) {
      await expect(guard.queue.getByText(PLACE)).toBeVisible();
      await expect(guard.verdict).toContainText(/Your guard is (\d+(st|nd|rd|th) in line|being attacked now)/);
      await expect(guard.statement).toHaveValue(trainees[i]?.statement ?? '');
      await expect(guard.attack).toBeDisabled();
      await expect(guard.attack).toHaveAccessibleDescription(/Attack my guard is off until its verdict is in/);
    }

    // The trainer's wall: the three rows, and, two attacked at a time, the third in line.
    for (const { name } of trainees) await expect(wall.rowsOf(name)).toHaveCount(1);
    await expect(wall.queueLine).toHaveText(/^In line: [1-9]\d* · being attacked: [1-9]\d*$/, {
      timeout: ATTACK_TIMEOUT,
    });
    await expect(wall.rows.filter({ hasText: '⏳ being attacked' }).filter({ hasText: String(run) })).not.toHaveCount(
      0,
    );
    // The trainee in line sees it too.
    let inLine = -1;
    await expect
      .poll(async () => {
        const texts = await Promise.all(guards.map((guard) => guard.queue.textContent().catch(() => '')));
        inLine = texts.findIndex((text) => / in line, /.test(text ?? ''));
        return inLine;
      })
      .toBeGreaterThanOrEqual(0);
    await expect(wall.rowsOf(trainees[inLine]?.name ?? '')).toContainText('⏳ in line');

    // Reloaded, its editor waits again (its last attempt is still in line), until it is attacked.
    const waiting = guards[inLine] as GuardPage;
    await waiting.gotoFreePlay();
    await expect(waiting.queue).toContainText(/Your guard is (\d+(st|nd|rd|th) )?(in line|being attacked)/);
    await expect(waiting.attack).toBeDisabled();
    await expect(waiting.queue).toContainText(/being attacked now, about \d+ s left/, { timeout: ATTACK_TIMEOUT });

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
