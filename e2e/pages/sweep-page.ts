import { readFile } from 'node:fs/promises';
import type { Locator, Page } from '@playwright/test';

/** /sweep: the grid's form, the progress bar, the heat map's cells and the export, found as a person finds them. */
export class SweepPage {
  readonly pauses: Locator;
  readonly ttls: Locator;
  readonly drifts: Locator;
  readonly runsAtOnce: Locator;
  readonly start: Locator;
  readonly stop: Locator;
  readonly progress: Locator;
  readonly status: Locator;
  readonly heatmap: Locator;
  readonly selected: Locator;
  readonly exportTheme: Locator;
  readonly exportSvg: Locator;
  readonly refusal: Locator;

  constructor(readonly page: Page) {
    this.pauses = page.getByLabel('Pause lengths (ms)');
    this.ttls = page.getByLabel('Lease TTLs (ms)');
    this.drifts = page.getByLabel("A's clock drift (% slow)");
    this.runsAtOnce = page.getByLabel('Runs at once');
    this.start = page.getByRole('button', { name: 'Start the sweep' });
    this.stop = page.getByRole('button', { name: 'Stop the sweep' });
    this.progress = page.getByRole('progressbar', { name: 'Sweep progress' });
    this.status = page.getByRole('status').filter({ hasText: /runs/ });
    this.heatmap = page.getByRole('region', { name: /^Heat map:/ });
    this.selected = page.getByText(/^Selected: /);
    this.exportTheme = page.getByLabel('Theme (SVG)');
    this.exportSvg = page.getByRole('button', { name: 'Export heat map (SVG)' });
    this.refusal = page.getByRole('form', { name: 'The grid' }).getByRole('alert');
  }

  async goto(): Promise<void> {
    await this.page.goto('/sweep');
  }

  /** The heat map's cell for a run, by its words. */
  cell(words: string | RegExp): Locator {
    return this.heatmap.getByRole('button', { name: words });
  }

  async download(): Promise<{ fileName: string; text: string }> {
    const [download] = await Promise.all([this.page.waitForEvent('download'), this.exportSvg.click()]);
    return { fileName: download.suggestedFilename(), text: (await readFile(await download.path())).toString('utf8') };
  }
}
