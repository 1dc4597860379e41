import { expect, type Locator, type Page } from '@playwright/test';
import { LabPage } from './lab-page';

/**
 * A guard attack runs real workers through a pause and a takeover, then two seeds of chaos: about
 * 20 s, much more on a busy machine (over 90 s seen at a load of 30 on 2 CPUs).
 */
export const ATTACK_TIMEOUT = 120_000;

/** A your-guard lab as its trainee finds it: the editor, the verdict, and the link to the counterexample. */
export class GuardPage extends LabPage {
  readonly editor: Locator;
  readonly name: Locator;
  readonly statement: Locator;
  readonly attack: Locator;
  readonly verdict: Locator;
  readonly counterexample: Locator;
  /** The statement the verdict's attempt ran (or the text it refused). */
  readonly attemptStatement: Locator;
  /** The row's table heading: what guards it, and how its last attack ended. */
  readonly guardHeading: Locator;
  /** While the guard waits: its place in the room's line (or being attacked) and estimate, visible. */
  readonly queue: Locator;

  /** `lab`: a your-guard lab's id (a private one's `p-…`). */
  constructor(page: Page, lab: string) {
    super(page, lab, 'your-guard');
    this.editor = page.getByRole('form', { name: 'Your guard' });
    this.name = this.editor.getByLabel('Your name (on the class wall)');
    this.statement = this.editor.getByLabel('The statement');
    this.attack = this.editor.getByRole('button', { name: 'Attack my guard' });
    this.verdict = this.editor.getByRole('status');
    this.counterexample = this.verdict.getByRole('link', { name: /^Open the counterexample on the timeline/ });
    this.attemptStatement = this.verdict.getByTestId('guard-attempt-statement');
    this.guardHeading = page.getByTestId('guard-heading');
    this.queue = this.editor.getByTestId('guard-queue');
  }

  /** Submits `statement` and waits for its verdict (the editor asks after it while it waits), which must match `expected`. */
  async submit(statement: string, expected: RegExp): Promise<void> {
    await this.statement.fill(statement);
    await this.attack.click();
    await expect(this.verdict).toContainText(expected, { timeout: ATTACK_TIMEOUT });
    await expect(this.attack).toBeEnabled();
  }
}
