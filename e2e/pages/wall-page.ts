import { expect, type Locator, type Page } from '@playwright/test';

/** The class wall: one row per trainee, named by the name they chose. */
export class WallPage {
  readonly table: Locator;
  readonly rows: Locator;
  readonly status: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole('table', { name: "Each trainee's latest guard and its verdict" });
    this.rows = this.table.getByTestId('wall-row');
    this.status = page.getByRole('region', { name: 'Guard attempts' }).getByRole('status');
  }

  async goto() {
    await this.page.goto('/wall');
    await expect(this.status).toContainText('live');
  }

  rowOf(name: string): Locator {
    return this.rows.filter({ has: this.page.getByRole('rowheader', { name, exact: true }) });
  }
}
