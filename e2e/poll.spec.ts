import { expect as baseExpect, test } from './fixtures';
import { WORKER_STEP_TIMEOUT } from './pages/lab-page';
import { PresenterPage } from './pages/presenter-page';
import { PollAsker, RoomPollPanel } from './pages/room-poll';
import { stepNumberOf, stepOf } from './steps';

/*
 * Predict, then watch (issue 22): the trainer asks the room before a step runs, two trainees (two
 * browsers, no trainer key) answer on their own pages, the trainer's page counts the answers as
 * they come, the tallies appear nowhere until the step runs (or Reveal), and the lab's exported
 * history carries the answers.
 */

// Three browsers at once: on a loaded machine a trainee's page takes many seconds to boot and connect.
const expect = baseExpect.configure({ timeout: 30_000 });

test('the trainer asks, two trainees answer, the count grows, the step reveals the tallies, the export carries them', async ({
  page,
  browser,
  lab,
}) => {
  test.setTimeout(600_000);
  const trainer = lab('fenced');
  const asker = new PollAsker(page);
  await trainer.gotoWalkthrough();
  await trainer.startOver.click();
  await trainer.expectStep('setup', 'The lab has been reset');

  const question = "Will A's first write be accepted?";
  await asker.suggested(question).click();
  await expect(asker.panel.getByTestId('poll-question')).toHaveText(question);
  await expect(asker.count).toHaveText('So far: no answers yet.');

  const contexts = await Promise.all([browser.newContext(), browser.newContext()]);
  try {
    const [tina, tom] = await Promise.all(
      contexts.map(async (context) => {
        const room = new RoomPollPanel(await context.newPage());
        await room.page.goto('/labs/fenced/walkthrough');
        await expect(room.open.getByTestId('poll-question')).toHaveText(question, { timeout: 90_000 });
        return room;
      }),
    );
    if (!tina || !tom) throw new Error('two trainees');

    await tina.choice('Yes').click();
    await expect(tina.status).toHaveText(/^Your answer: Yes\. You can change it/);
    await expect(asker.count).toHaveText('So far: 1 answer.');
    await tom.choice('Yes').click();
    await expect(tom.choice('Yes')).toHaveAttribute('aria-pressed', 'true');
    await tom.choice('No').click();
    await expect(tom.status).toHaveText(/^Your answer: No\./);
    await expect(asker.count).toHaveText('So far: 2 answers.');
    // A changed answer is the same person's: still two, and nobody sees the split before the reveal.
    await expect(tom.open.getByTestId('poll-count')).toHaveCount(0);
    for (const room of [tina, tom]) await expect(room.page.getByText(/\(\d+ %\)/)).toHaveCount(0);
    await expect(page.getByText(/\(\d+ %\)/)).toHaveCount(0);

    // The trainer runs the step asked about: the room sees what it predicted.
    await trainer.nextStep();
    await trainer.expectStep('a-writes', 'took the lease with token');
    for (const room of [tina, tom]) {
      await expect(room.answers.getByRole('listitem')).toHaveText([/^Yes: 1 \(50 %\)/, /^No: 1 \(50 %\)/], {
        timeout: WORKER_STEP_TIMEOUT,
      });
      await expect(room.revealed.getByTestId('poll-count')).toHaveText('Revealed: 2 answers.');
    }
    await expect(tina.answers.getByRole('listitem').first()).toContainText('(your answer)');
    await expect(asker.panel.getByRole('list', { name: 'The room’s answers' })).toContainText('Yes: 1 (50 %)');

    const history = await tina.exportHistory();
    // The file numbers the step as the pages do: "About step n" on /replay, `"step": n` in the file.
    const askedAbout = stepNumberOf('fenced', 'a-writes');
    expect(history.polls).toEqual([
      expect.objectContaining({
        step: askedAbout,
        question,
        choices: ['Yes', 'No'],
        state: 'revealed',
        answered: 2,
        tallies: [1, 1],
      }),
    ]);
    // Replayed from the file, the question comes back with what the room answered.
    const replay = await tina.page.context().newPage();
    await replay.goto('/replay');
    await replay.getByLabel('History file (JSON)').setInputFiles({
      name: 'fenced.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(history)),
    });
    const replayed = replay.getByRole('region', { name: 'The room’s questions' });
    await expect(replayed).toContainText(`About step ${askedAbout}${question}`);
    await expect(replayed.getByRole('listitem').filter({ hasText: 'Yes' }).last()).toContainText('Yes: 1 (50 %)');
    await expect(replayed.getByTestId('poll-count')).toHaveText('Revealed: 2 answers.');
    await replay.close();

    // A question of the trainer's own, refused in words until it is right, revealed by the button.
    await asker.ownQuestion.click();
    await asker.question.fill('Who holds the lease after step 3?');
    await asker.choice(1).fill('A');
    await asker.choice(2).fill('a');
    await asker.askOwn.click();
    await expect(asker.refusal).toHaveText('Not asked: choices 1 and 2 say the same thing: make them differ.');
    await asker.choice(2).fill('B');
    await asker.addChoice.click();
    await asker.choice(3).fill('Nobody');
    await asker.askOwn.click();
    await expect(tom.open.getByTestId('poll-question')).toHaveText('Who holds the lease after step 3?');
    await tom.choice('Nobody').click();
    await expect(asker.count).toHaveText('So far: 1 answer.');
    await asker.reveal.click();
    await expect(tina.answers.getByRole('listitem')).toHaveText([/^A: 0 /, /^B: 0 /, /^Nobody: 1 \(100 %\)/]);
  } finally {
    await Promise.all(contexts.map((context) => context.close()));
  }
});

test('from the projector: Q asks the room about the next step, the presenter counts the answers, Q again reveals them', async ({
  page,
  browser,
  lab,
}) => {
  test.setTimeout(300_000);
  lab('fenced');
  const presenter = new PresenterPage(page, 'fenced');
  await presenter.gotoPresenter();
  await presenter.startOver.click();
  await presenter.expectStep('setup', 'The lab has been reset');
  const question = "Will A's first write be accepted?";
  const onScreen = page.getByTestId('presenter-poll');
  // Until asked, nothing takes the narration's room: the keys' line says what Q does.
  await expect(onScreen).toHaveCount(0);
  await expect(page.getByText('Q ask the room')).toBeVisible();

  await page.keyboard.press('q');
  await expect(onScreen).toContainText(`The room: ${question}`);
  await expect(onScreen).toContainText('So far: no answers yet · Q reveals');

  const context = await browser.newContext();
  try {
    const tina = new RoomPollPanel(await context.newPage());
    await tina.page.goto('/labs/fenced/walkthrough');
    await expect(tina.open.getByTestId('poll-question')).toHaveText(question, { timeout: 90_000 });
    await tina.choice('No').click();
    await expect(onScreen).toContainText('So far: 1 answer · Q reveals');
    // Nothing of the split is on the projector before the reveal.
    await expect(onScreen).not.toContainText('No: 1');

    await page.keyboard.press('q');
    await expect(onScreen).toContainText('Yes: 0 · No: 1');
    await expect(tina.answers.getByRole('listitem')).toHaveText([/^Yes: 0 /, /^No: 1 \(100 %\)/]);

    // A question asked at A's freeze (about the step after it) stays on the projector while it is open,
    // whichever step is shown: gone back two steps, it names its step; revealed, it belongs to its step alone.
    const askedAt = stepNumberOf('fenced', 'a-freezes');
    await presenter.nextStep();
    await presenter.expectStep('a-writes', /\S/);
    await presenter.nextStep();
    await presenter.expectStep('a-freezes', /\S/);
    await page.keyboard.press('q');
    await expect(onScreen).toContainText('So far: no answers yet · Q reveals');
    await expect(onScreen).not.toContainText('about step');
    await presenter.back.click();
    await presenter.back.click();
    await expect(presenter.stepCounter).toHaveText(stepOf('fenced', askedAt - 2));
    await expect(onScreen).toContainText(new RegExp(`^The room, about step ${askedAt + 1}: `));
    await expect(onScreen).toContainText('Q reveals');
    await page.keyboard.press('q');
    await expect(onScreen).toHaveCount(0);
  } finally {
    await context.close();
  }
});
