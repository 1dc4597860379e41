import { seriousViolations } from './axe';
import { expect, test } from './fixtures';
import { ATTACK_TIMEOUT, GuardPage } from './pages/guard-page';
import { SessionPage } from './pages/session-page';
import { WallPage } from './pages/wall-page';

/*
 * Bring your own guard (issue 15 part 1): a trainee writes the UPDATE that guards the row; the lab
 * attacks it with real workers (A with token 9 frozen, B with 10, A wakes). The right guard passes;
 * each classic wrong one, and one that raises an error, gets its verdict and a counterexample that
 * opens on the replay's timeline, saying the statement that ran and what it did; a statement that is not one plain UPDATE of the lab's table is refused before it runs.
 */

const SET = 'UPDATE guarded_row SET value = $1, last_token = $2 WHERE id = $3';

test('a trainee submits a right guard, three classic wrong ones and one that fails; the trainer’s wall shows all five live', async ({
  page,
  browser,
}) => {
  test.setTimeout(7 * ATTACK_TIMEOUT);
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

    // Each with the write its counterexample must show, in words of what really ran: the trainee's
    // statement (as PostgreSQL's parser printed it) and its real outcome, never the seed's statement.
    const wrong: Array<[string, string, RegExp, RegExp]> = [
      [
        'no token check',
        SET,
        /your guard let token 9 overwrite token 10/,
        /^(Violation: )?A's write "A-\d+" with token 9: accepted over the newer token 10\./,
      ],
      [
        '< on text',
        `${SET} AND last_token::text <= $2::text`,
        /your guard turned away token 10 while the row held only token 9/,
        /^(Violation: )?B's write "B-\d+" with token 10: refused, though the row held only the older token 9\./,
      ],
      [
        '>= reversed',
        `${SET} AND last_token >= $2`,
        /your guard turned away token 9 while the row held only token 0/,
        /^(Violation: )?A's write "A-\d+" with token 9: refused, though the row held only the older token 0\./,
      ],
      [
        'an error on token 10',
        `${SET} AND last_token <= $2 AND 1 / (10 - $2) >= 0`,
        /your guard raised an error on token 10's write and wrote nothing: division by zero/,
        /^(Violation: )?B's write "B-\d+" with token 10: your guard raised an error: division by zero\./,
      ],
    ];
    for (const [what, statement, violation, write] of wrong) {
      await guard.gotoFreePlay();
      await guard.name.fill(trainee);
      await guard.submit(statement, violation);
      await expect(guard.verdict, what).toContainText('✗ Broken');
      await guard.counterexample.click();
      await guard.page.waitForURL(/\/replay\?attempt=\d+$/);
      await expect(guard.page.getByTestId('replayed-file')).toContainText(`${trainee}'s guard`);
      // The counterexample's offending write is on the replayed timeline, in words of the guard that ran.
      const mark = guard.markTitled(write);
      await expect(mark, what).toBeVisible();
      await expect(mark, what).toHaveAccessibleName(/your guard ran: UPDATE guarded_row SET value = \$1/);
      await expect(mark, what).not.toHaveAccessibleName(/stale|WHERE last_token <= \d+:/);
      if (what !== 'an error on token 10') await expect(guard.markTitled(/^Violation: /).first()).toBeVisible();
    }

    // The trainer's wall, open all along, shows the four attempts as they came, and the latest verdict.
    const row = wall.rowOf(trainee);
    await expect(row.getByRole('cell').nth(1)).toHaveText(/^5$/, { timeout: ATTACK_TIMEOUT });
    await expect(row).toContainText("your guard raised an error on token 10's write and wrote nothing");
    // Its counterexample opens for the projector.
    await row.getByRole('link', { name: /^Open attempt \d+/ }).click();
    await page.waitForURL(/\/replay\?attempt=\d+$/);
    await expect(page.getByTestId('replayed-file')).toContainText(`${trainee}'s guard`);
    await expect(
      new GuardPage(page, opened.lab).markTitled(/^B's write "B-\d+" with token 10: your guard raised an error/),
    ).toBeVisible();

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
