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
 * Every attempt keeps its statement (issue 22 part 3): the editor opens with the last one, and the
 * attempt, its counterexample and the wall show it; the wall tells same-name trainees apart.
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

    await guard.submit(
      `${SET} AND last_token <= $2`,
      /^✓ Passed: your guard held against the pause story and \d+ stale writes over 2 seeds/,
    );
    await expect(guard.counterexample).toHaveCount(0);
    // A screen reader hears the words, not the mark ("check mark"): the mark is for the eye.
    const heard = await guard.verdict.ariaSnapshot();
    expect(heard).toContain('Passed: your guard held against the pause story');
    expect(heard).not.toContain('✓');
    await expect(guard.attemptStatement).toHaveText(`${SET} AND last_token <= $2`);
    await expect(guard.guardHeading).toHaveText('(guarded by your statement: it held its last attack)');
    // A reload opens the editor with the trainee's last name, statement and verdict, not the starter.
    await guard.gotoFreePlay();
    // As PostgreSQL's deparser wrote it back (the canonical statement that ran).
    await expect(guard.statement).toHaveValue(`${SET}\n  AND last_token <= $2`);
    await expect(guard.name).toHaveValue(trainee);
    await expect(guard.verdict).toContainText('✓ Passed: your guard held against the pause story');
    await expect(guard.guardHeading).toHaveText('(guarded by your statement: it held its last attack)');

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
        // The statement names 10: a stale writer of the story holds token 10, and its first write fails.
        /^(Violation: )?[A-Z]'s write "[A-Z]-\d+" with token 10: your guard raised an error: division by zero\./,
      ],
    ];
    for (const [what, statement, violation, write] of wrong) {
      await guard.gotoFreePlay();
      await guard.name.fill(trainee);
      await guard.submit(statement, violation);
      await expect(guard.verdict, what).toContainText('✗ Broken');
      await expect(guard.guardHeading).toHaveText('(guarded by your statement: its last attack broke it)');
      const ran = (await guard.attemptStatement.textContent()) ?? '';
      expect(ran, what).toMatch(/^UPDATE guarded_row SET value = \$1, last_token = \$2 WHERE id = \$3/);
      await guard.counterexample.click();
      await guard.page.waitForURL(/\/replay\?attempt=\d+$/);
      await expect(guard.page.getByTestId('replayed-file')).toContainText(
        new RegExp(`the guard of ${trainee} · [0-9a-f]{4}`),
      );
      await expect(guard.page.getByTestId('counterexample-statement'), what).toHaveText(ran);
      // The counterexample's offending write is on the replayed timeline, in words of the guard that ran.
      const mark = guard.markTitled(write);
      await expect(mark, what).toBeVisible();
      await expect(mark, what).toHaveAccessibleName(/your guard ran: UPDATE guarded_row SET value = \$1/);
      await expect(mark, what).not.toHaveAccessibleName(/stale|WHERE last_token <= \d+:/);
      if (what !== 'an error on token 10') await expect(guard.markTitled(/^Violation: /).first()).toBeVisible();
    }

    // The trainer's wall, open all along, shows the five attempts as they came, one row each, newest
    // first, each with its time, statement and verdict, and a link only to its own counterexample.
    const rows = wall.rowsOf(trainee);
    await expect(rows).toHaveCount(5, { timeout: ATTACK_TIMEOUT });
    const latest = rows.first();
    await expect(latest).toContainText("✗ your guard raised an error on token 10's write and wrote nothing");
    await expect(latest).toContainText(`${SET} AND last_token <= $2 AND (1 / (10 - $2)) >= 0`);
    // Written as the app writes every time: 24-hour database time, never "01:06:14 PM".
    await expect(latest.getByRole('cell').first()).toHaveText(/^\d{2}:\d{2}:\d{2}\.\d{3}$/);
    const passed = rows.last();
    await expect(passed).toContainText('✓ your guard held against the pause story');
    await expect(passed).toContainText(`${SET} AND last_token <= $2`);
    await expect(passed.getByRole('link')).toHaveCount(0);
    // Its counterexample opens for the projector, with the statement that ran.
    await latest.getByRole('link', { name: /^Open attempt \d+/ }).click();
    await page.waitForURL(/\/replay\?attempt=\d+$/);
    await expect(page.getByTestId('replayed-file')).toContainText(new RegExp(`the guard of ${trainee} · [0-9a-f]{4}`));
    await expect(page.getByTestId('counterexample-statement')).toHaveText(
      `${SET} AND last_token <= $2 AND (1 / (10 - $2)) >= 0`,
    );
    await expect(
      new GuardPage(page, opened.lab).markTitled(
        /^[A-Z]'s write "[A-Z]-\d+" with token 10: your guard raised an error/,
      ),
    ).toBeVisible();

    // The trainee's own wall shows their attempts only.
    const own = new WallPage(guard.page);
    await own.goto();
    await expect(own.rows).toHaveCount(5);
    await expect(own.rowsOf(trainee)).toHaveCount(5);
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

test('two trainees who chose the same name are told apart on the wall; refusals are kept apart from attempts', async ({
  page,
  browser,
}) => {
  test.setTimeout(3 * ATTACK_TIMEOUT);
  const tina = `Tina ${Date.now() % 1_000_000}`;
  const wall = new WallPage(page);
  await wall.goto();
  const contexts = [await browser.newContext(), await browser.newContext()];
  try {
    for (const context of contexts) {
      const opened = await new SessionPage(await context.newPage()).openPrivateLab('Your guard');
      const guard = new GuardPage(opened.page, opened.lab);
      await guard.name.fill(tina);
      await guard.submit('DELETE FROM guarded_row', /not a DELETE/);
      await expect(guard.attemptStatement).toHaveText('DELETE FROM guarded_row');
      // A refusal is kept too: a reload opens with it.
      await guard.gotoFreePlay();
      await expect(guard.statement).toHaveValue('DELETE FROM guarded_row');
      await expect(guard.name).toHaveValue(tina);
      // Refused before it ran: nothing was installed, and the heading says so.
      await expect(guard.guardHeading).toHaveText('(no guard yet: write one below)');
    }
    // Two rows, among the refusals and not the attempts, under two different labels.
    const refused = wall.rowsOf(tina, wall.refusals);
    await expect(refused).toHaveCount(2, { timeout: ATTACK_TIMEOUT });
    await expect(wall.rowsOf(tina)).toHaveCount(0);
    const labels = await refused.getByRole('rowheader').allTextContents();
    expect(labels).toHaveLength(2);
    for (const label of labels) expect(label).toMatch(WallPage.label(tina));
    expect(labels[0]).not.toBe(labels[1]);
    await expect(refused.first()).toContainText('DELETE FROM guarded_row');
  } finally {
    for (const context of contexts) await context.close();
  }
});
