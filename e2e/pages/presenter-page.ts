import type { Locator, Page } from '@playwright/test';
import type { LabId } from '../../lib/model/lab/lab-kinds';
import { LabPage } from './lab-page';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Presenter mode as the room sees it: the same timeline, tables and narration as a lab page (found
 * the same way), plus the worker strip, the autoplay status, the keys' help and the watcher's notice.
 */
export class PresenterPage extends LabPage {
  readonly workerStrip: Locator;
  readonly autoplayStatus: Locator;
  readonly driveStatus: Locator;
  readonly readOnly: Locator;
  readonly keysButton: Locator;
  readonly keysHelp: Locator;
  readonly leave: Locator;
  readonly commandNotice: Locator;

  constructor(page: Page, lab: LabId) {
    super(page, lab);
    this.workerStrip = page.getByRole('region', { name: 'Workers', exact: true });
    this.autoplayStatus = page.getByTestId('autoplay-status');
    this.driveStatus = page.getByTestId('drive-status');
    this.readOnly = page.getByRole('region', { name: 'Watching: read-only' });
    this.keysButton = page.getByRole('button', { name: '? Keys' });
    this.keysHelp = page.getByRole('region', { name: 'Presenter keys' });
    this.leave = page.getByRole('link', { name: 'Leave presenter mode' });
    // The confirmation of the last command (the checker's verdict is a status starting with ✓ too).
    this.commandNotice = page.getByRole('status').filter({ hasText: /^✓ (?!Checker:)/ });
  }

  async gotoPresenter() {
    await this.page.goto(`/labs/${this.lab}/present`);
  }

  /** A worker's button in the strip (named by the worker, its state and, when chosen, "(selected)"). */
  stripWorker(name: string) {
    return this.workerStrip.getByRole('button', { name: new RegExp(`^${escapeRegExp(name)} `) });
  }

  stripPhase(name: string) {
    return this.workerStrip.getByTestId(`strip-${name}-phase`);
  }
}
