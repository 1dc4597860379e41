import type { Locator, Page } from '@playwright/test';

/** The first page: the protected table's rows and the current leases, as a person finds them. */
export class HomePage {
  readonly heading: Locator;
  readonly rows: Locator;
  readonly leases: Locator;
  readonly liveToggle: Locator;

  constructor(private readonly page: Page) {
    this.heading = page.getByRole('heading', { level: 1, name: 'Fencing Lab' });
    this.rows = page.getByRole('region', { name: 'protected_rows' });
    this.leases = page.getByRole('region', { name: 'leases' });
    this.liveToggle = page.getByRole('button', { name: /live refresh/i });
  }

  async goto() {
    await this.page.goto('/');
  }

  rowById(id: number): Locator {
    return this.rows.getByRole('row').filter({ has: this.page.getByRole('cell', { name: String(id), exact: true }) });
  }

  leaseOn(resource: string): Locator {
    return this.leases.getByRole('row').filter({ has: this.page.getByRole('cell', { name: resource, exact: true }) });
  }
}
