import { readFile } from 'node:fs/promises';
import type { Locator, Page } from '@playwright/test';

/** The trainer's "Ask the room", beside the walkthrough's narration. */
export class PollAsker {
  readonly panel: Locator;
  readonly count: Locator;
  readonly reveal: Locator;
  readonly ownQuestion: Locator;
  readonly question: Locator;
  readonly askOwn: Locator;
  readonly addChoice: Locator;
  readonly refusal: Locator;

  constructor(readonly page: Page) {
    this.panel = page.getByRole('region', { name: 'Ask the room' });
    this.count = this.panel.getByTestId('poll-count');
    this.reveal = this.panel.getByRole('button', { name: 'Reveal the answers' });
    this.ownQuestion = this.panel.getByText('Ask your own question');
    this.question = this.panel.getByLabel('Question', { exact: true });
    this.askOwn = this.panel.getByRole('button', { name: 'Ask the room', exact: true });
    this.addChoice = this.panel.getByRole('button', { name: 'Add a choice' });
    this.refusal = this.panel.getByRole('alert');
  }

  /** The question the story suggests for the next step. */
  suggested(question: string) {
    return this.panel.getByRole('button', { name: `Ask: ${question} (Yes / No)` });
  }

  choice(n: number) {
    return this.panel.getByLabel(`Choice ${n}`, { exact: true });
  }
}

/** A trainee's side: the question, its choices as buttons, then the room's answers once revealed. */
export class RoomPollPanel {
  readonly open: Locator;
  readonly revealed: Locator;
  readonly answers: Locator;
  readonly status: Locator;

  constructor(readonly page: Page) {
    this.open = page.getByRole('region', { name: 'Predict, then watch' });
    this.revealed = page.getByRole('region', { name: 'What the room predicted' });
    this.answers = page.getByRole('list', { name: 'The room’s answers' });
    this.status = this.open.getByRole('status');
  }

  choice(text: string) {
    return this.open.getByRole('button', { name: text, exact: true });
  }

  /** The lab's history as its Export panel downloads it (JSON). */
  async exportHistory(): Promise<Record<string, unknown>> {
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.page.getByRole('button', { name: 'Export history (JSON)' }).click(),
    ]);
    return JSON.parse(await readFile(await download.path(), 'utf8'));
  }
}
