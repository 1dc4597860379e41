import { expect, type Locator, type Page } from '@playwright/test';
import { LAB_IDS, LABS } from '../../lib/model/lab/lab-kinds';
import { LabPage, WORKER_STEP_TIMEOUT } from './lab-page';

/** What tells a person whether they drive a lab or watch it, and the ways to change that. */
export class SessionPage {
  readonly driveStatus: Locator;
  readonly readOnly: Locator;
  readonly trainerKey: Locator;
  readonly unlock: Locator;
  readonly keyError: Locator;
  readonly privateKind: Locator;
  readonly openPrivate: Locator;

  constructor(readonly page: Page) {
    this.driveStatus = page.getByTestId('drive-status');
    this.readOnly = page.getByRole('region', { name: 'Watching: read-only' });
    this.trainerKey = page.getByRole('textbox', { name: 'Trainer key', exact: true });
    this.unlock = page.getByRole('button', { name: 'Drive the shared labs' });
    this.keyError = page.getByRole('form', { name: 'Drive with the trainer key' }).getByRole('alert');
    this.privateKind = page.getByRole('form', { name: 'Open a private lab' }).getByLabel('Kind of lab');
    this.openPrivate = page.getByRole('button', { name: 'Open a private lab' });
  }

  /** Opens a private lab of the kind titled `kindTitle` from the home page; returns its page object, opened. */
  async openPrivateLab(kindTitle: string): Promise<LabPage> {
    const kind = LAB_IDS.find((id) => LABS[id].title === kindTitle);
    if (kind === undefined) throw new Error(`no kind of lab is titled ${kindTitle}`);
    await this.page.goto('/');
    await this.privateKind.selectOption({ label: kindTitle });
    await this.openPrivate.click();
    await this.page.waitForURL(/\/labs\/p-[a-z0-9]{10}$/, { timeout: WORKER_STEP_TIMEOUT });
    const id = new URL(this.page.url()).pathname.split('/').at(-1) as string;
    await expect(this.driveStatus).toHaveText('Your private lab');
    return new LabPage(this.page, id, kind);
  }
}
