import { expect, type Locator, type Page } from '@playwright/test';

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The class wall: one row per attempt, each trainee named by the name they chose and a short tag; refusals apart. */
export class WallPage {
  readonly table: Locator;
  readonly rows: Locator;
  readonly refusals: Locator;
  readonly status: Locator;
  /** The trainer's line above the table: "In line: 3 · being attacked: 2". */
  readonly queueLine: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Every guard attempt, newest first' });
    this.rows = this.table.getByTestId('wall-row');
    this.refusals = page
      .getByRole('table', { name: 'Statements refused before they ran, newest first' })
      .getByTestId('wall-refusal');
    this.status = page.getByRole('region', { name: 'Guard attempts' }).getByRole('status');
    this.queueLine = page.getByTestId('wall-queue');
  }

  async goto() {
    await this.page.goto('/wall');
    await expect(this.status).toContainText('live');
  }

  /** A trainee's name as a row heading says it: the name, then " · " and four hex digits of their key. */
  static label(name: string): RegExp {
    return new RegExp(`^${escaped(name)} · [0-9a-f]{4}$`);
  }

  /** The rows (newest first) of every trainee who chose `name`. */
  rowsOf(name: string, rows: Locator = this.rows): Locator {
    return rows.filter({ has: this.page.getByRole('rowheader', { name: WallPage.label(name) }) });
  }
}
