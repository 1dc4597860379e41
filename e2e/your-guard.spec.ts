import { seriousViolations } from './axe';
import { expect, test } from './fixtures';
import { ATTACK_TIMEOUT, GuardPage } from './pages/guard-page';
import { SessionPage } from './pages/session-page';
import { WallPage } from './pages/wall-page';

/*
 * Bring your own guard (issue 15 part 1): a trainee writes the UPDATE that guards the row; the lab
 * attacks it with real workers (A with token 9 frozen, B with 10, A wakes). The right guard passes;
 * each classic wrong one gets its named violation and a counterexample that opens on the replay's
 * timeline; a statement that is not one plain UPDATE of the lab's table is refused before it runs.
 */

const SET = 'UPDATE guarded_row SET value = $1, last_token = $2 WHERE id = $3';

test('a trainee submits a right guard and three classic wrong ones; the trainer’s wall shows all four live', async ({
  page,
  browser,
}) => {
  test.setTimeout(6 * ATTACK_TIMEOUT);
  // The e2e database outlives a run: a name of this run's own finds this trainee's row.
  const trainee = `Ada ${Date.now() % 1_000_000}`;
  const wall = new WallPage(page);
  await wall.goto();
  expect(await seriousViolations(page)).toEqual([]);
  const context = await browser.newContext();
  try {
    const session = new SessionPage(await context.newPage());
    const opened = await session.openPrivateLab('Your guard');
    const guard = new GuardPage(opened.page, opened.lab);
    await guard.name.fill(trainee);
    expect(await seriousViolations(guard.page)).toEqual([]);

    await guard.submit(`${SET} AND last_token <= $2`, /^✓ Passed: your guard held/);
    await expect(guard.counterexample).toHaveCount(0);

    // Each with the write its counterexample must show: the holder, its outcome, its token.
    const wrong: Array<[string, string, RegExp, [string, 'accepted' | 'rejected', number]]> = [
      ['no token check', SET, /your guard let token 9 overwrite token 10/, ['A', 'accepted', 9]],
      [
        '< on text',
        `${SET} AND last_token::text <= $2::text`,
        /your guard turned away token 10 while the row held only token 9/,
        ['B', 'rejected', 10],
      ],
      [
        '>= reversed',
        `${SET} AND last_token >= $2`,
        /your guard turned away token 9 while the row held only token 0/,
        ['A', 'rejected', 9],
      ],
    ];
    for (const [what, statement, violation, [holder, outcome, token]] of wrong) {
      await guard.gotoFreePlay();
      await guard.name.fill(trainee);
      await guard.submit(statement, violation);
      await expect(guard.verdict, what).toContainText('✗ Broken');
      await guard.counterexample.click();
      await guard.page.waitForURL(/\/replay\?attempt=\d+$/);
      await expect(guard.page.getByTestId('replayed-file')).toContainText(`${trainee}'s guard`);
      // The counterexample's offending write is on the replayed timeline, flagged by the checker.
      await expect(guard.writeMark(holder, outcome, { token }), what).toBeVisible();
      await expect(guard.markTitled(/^Violation: /).first()).toBeVisible();
    }

    // The trainer's wall, open all along, shows the four attempts as they came, and the latest verdict.
    const row = wall.rowOf(trainee);
    await expect(row.getByRole('cell').nth(1)).toHaveText(/^4$/, { timeout: ATTACK_TIMEOUT });
    await expect(row).toContainText('your guard turned away token 9 while the row held only token 0');
    // Its counterexample opens for the projector.
    await row.getByRole('link', { name: /^Open attempt \d+/ }).click();
    await expect(page.getByTestId('replayed-file')).toContainText(`${trainee}'s guard`);
    await expect(new GuardPage(page, opened.lab).writeMark('A', 'rejected', { token: 9 })).toBeVisible();

    // The trainee's own wall shows their row only.
    const own = new WallPage(guard.page);
    await own.goto();
    await expect(own.rows).toHaveCount(1);
    await expect(own.rowOf(trainee)).toBeVisible();
  } finally {
    await context.close();
  }
});

test('a guard that is not one plain UPDATE of the lab’s table is refused before it runs', async ({ browser }) => {
  test.setTimeout(2 * ATTACK_TIMEOUT);
  const context = await browser.newContext();
  try {
    const session = new SessionPage(await context.newPage());
    const opened = await session.openPrivateLab('Your guard');
    const guard = new GuardPage(opened.page, opened.lab);
    await guard.name.fill('Bob');
    const refused: Array<[string, RegExp]> = [
      ['DELETE FROM guarded_row', /not a DELETE/],
      [`${SET} AND pg_sleep(5) IS NOT NULL`, /a guard calls no function \(it calls pg_sleep\)/],
      [
        'UPDATE unguarded_rows SET value = $1 WHERE id = $3',
        /updates guarded_row, the lab's own table, and nothing else/,
      ],
      [`${SET} AND last_token <= (SELECT max(token) FROM events)`, /a sub-select/],
      ["UPDATE guarded_row SET value = set_config('role', 'x', false)", /it calls set_config/],
      [`${SET}; DROP TABLE guarded_row`, /exactly one statement, and this is 2/],
    ];
    for (const [statement, reason] of refused) {
      await guard.submit(statement, reason);
      await expect(guard.verdict).toContainText('✗ Refused: refused before it ran');
    }
    // Nothing ran: no worker wrote, the row is as the lab opened.
    await expect(guard.writeMarks).toHaveCount(0);
    await expect(guard.rowValue()).toHaveText('initial');
  } finally {
    await context.close();
  }
});
