import { readFile } from 'node:fs/promises';
import { expect, type Locator, type Page } from '@playwright/test';

export type Downloaded = { fileName: string; bytes: Buffer; text: string };

/**
 * The replay bar and the export buttons, as a person finds them on a lab's page or on /replay: the
 * "Moment" slider, the step and play buttons, and the tables' "as at … (replay)" captions.
 */
export class ReplayControls {
  readonly bar: Locator;
  readonly moment: Locator;
  readonly play: Locator;
  readonly pause: Locator;
  readonly previousEvent: Locator;
  readonly nextEvent: Locator;
  readonly speed: Locator;
  readonly backToLive: Locator;
  readonly copyLink: Locator;
  readonly copied: Locator;
  /** The "as at 12.3 s (replay)" caption of the row table and of the lease table. */
  readonly tableCaptions: Locator;

  readonly exportArea: Locator;
  readonly exportSvg: Locator;
  readonly exportPng: Locator;
  readonly exportJson: Locator;
  readonly checkerReport: Locator;

  constructor(readonly page: Page) {
    this.bar = page.getByRole('region', { name: /^Replay/ });
    this.moment = this.bar.getByRole('slider', { name: 'Moment' });
    this.play = this.bar.getByRole('button', { name: 'Play', exact: true });
    this.pause = this.bar.getByRole('button', { name: 'Pause', exact: true });
    this.previousEvent = this.bar.getByRole('button', { name: 'Previous event' });
    this.nextEvent = this.bar.getByRole('button', { name: 'Next event' });
    this.speed = this.bar.getByLabel('Speed');
    this.backToLive = this.bar.getByRole('button', { name: 'Back to live' });
    this.copyLink = this.bar.getByRole('button', { name: 'Copy link to this moment' });
    this.copied = this.bar.getByRole('status').filter({ hasText: /^Copied: / });
    this.tableCaptions = page.getByRole('table').locator('caption');

    this.exportArea = page.getByRole('region', { name: 'Export', exact: true });
    this.exportSvg = this.exportArea.getByRole('button', { name: 'Export SVG' });
    this.exportPng = this.exportArea.getByRole('button', { name: 'Export PNG' });
    this.exportJson = this.exportArea.getByRole('button', { name: 'Export history (JSON)' });
    this.checkerReport = this.exportArea.getByRole('button', { name: 'Checker report' });
  }

  /** Seconds into the history the slider says it is at ("12.3 s of 40.0 s" → 12.3). */
  async momentSeconds(): Promise<number> {
    const text = (await this.moment.getAttribute('aria-valuetext')) ?? '';
    return Number(text.match(/^([\d.]+) s of /)?.[1]);
  }

  /** Seconds the whole history held spans ("12.3 s of 40.0 s" → 40.0): it grows while live events come in. */
  async historySeconds(): Promise<number> {
    const text = (await this.moment.getAttribute('aria-valuetext')) ?? '';
    return Number(text.match(/ of ([\d.]+) s/)?.[1]);
  }

  /** Moves the slider with the keyboard, as a person without a mouse would ("Home", "End", …). */
  async pressOnSlider(key: string) {
    await this.moment.focus();
    await this.page.keyboard.press(key);
  }

  /** Clicks an export button and returns the file the browser downloaded. */
  async download(button: Locator): Promise<Downloaded> {
    const [download] = await Promise.all([this.page.waitForEvent('download'), button.click()]);
    const path = await download.path();
    const bytes = await readFile(path);
    return { fileName: download.suggestedFilename(), bytes, text: bytes.toString('utf8') };
  }
}

/** /replay: a history file opened in the browser, then the same replay views as a lab's page. */
export class ImportPage {
  readonly fileInput: Locator;
  readonly error: Locator;
  readonly replayedFile: Locator;

  constructor(readonly page: Page) {
    this.fileInput = page.getByLabel('History file (JSON)');
    this.error = page.getByRole('alert').filter({ hasText: /^✗ .* (was not opened|could not be read)/ });
    this.replayedFile = page.getByTestId('replayed-file');
  }

  async goto() {
    await this.page.goto('/replay');
    await expect(this.page.getByRole('heading', { name: 'Open a history file' })).toBeVisible();
  }

  async open(fileName: string, text: string) {
    await this.fileInput.setInputFiles({ name: fileName, mimeType: 'application/json', buffer: Buffer.from(text) });
  }
}
