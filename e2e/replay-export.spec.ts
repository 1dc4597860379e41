import type { Page } from '@playwright/test';
import type { HistoryFile } from '../lib/model/history/history-file';
import { waitFor } from '../lib/testing/wait';
import { expect, test } from './fixtures';
import { readLabEvents } from './lab-state';
import { LabPage, WORKER_STEP_TIMEOUT } from './pages/lab-page';
import { ImportPage, ReplayControls } from './pages/replay-page';
import { canvasPaints, countCanvasPaints } from './painted';

const FILE_NAME = (ext: string) => new RegExp(`^fencing-lab-fenced-\\d{8}T\\d{6}Z\\.${ext}$`);
const isWrite = (kind: string) => kind === 'write_accepted' || kind === 'write_rejected';

/** What the browser's own XML parser makes of an SVG file: an error, the root, the lanes' names, the background. */
async function parseSvg(page: Page, text: string) {
  return page.evaluate((svg) => {
    const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
    return {
      error: doc.querySelector('parsererror')?.textContent ?? null,
      root: doc.documentElement.nodeName,
      holders: [...doc.querySelectorAll('g[data-lane-label] > title')].map((title) => title.textContent),
      background: doc.querySelector('svg > rect')?.getAttribute('fill'),
    };
  }, text);
}

test('replay a real run, export it, open the export again and land on the same timeline', async ({
  lab,
  page,
  browser,
}) => {
  test.setTimeout(240_000);
  const fenced = lab('fenced');
  const replay = new ReplayControls(page);
  // The media queries the page asks about the pixel density, kept where the test can reach them (below).
  await page.addInitScript(() => {
    const w = window as unknown as { densityQueries: MediaQueryList[] };
    w.densityQueries = [];
    const matchMedia = window.matchMedia.bind(window);
    window.matchMedia = (query: string) => {
      const list = matchMedia(query);
      if (query.includes('resolution')) w.densityQueries.push(list);
      return list;
    };
  });

  // A real run: A takes the lease and writes, B waits, A freezes, its lease runs out, B takes over and writes.
  await fenced.gotoFreePlay();
  await fenced.reset();
  await fenced.startWorker('A', 2);
  const tokenA = await fenced.waitForLeaseHolder('A');
  await expect(fenced.writeMark('A', 'accepted', { token: tokenA }).first()).toBeVisible({
    timeout: WORKER_STEP_TIMEOUT,
  });
  await fenced.startWorker('B', 3);
  await expect(fenced.worker('A')).toBeChecked();
  await fenced.pauseUntilResumed.click();
  await expect(fenced.worker('A')).toHaveAccessibleName(/^A frozen/, { timeout: WORKER_STEP_TIMEOUT });
  await expect(fenced.leaseHolder()).toHaveText('B', { timeout: WORKER_STEP_TIMEOUT });
  await expect(fenced.writeMark('B', 'accepted').first()).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });
  await expect(replay.tableCaptions).toHaveCount(0); // live: the tables are the database now
  // Live, the drawing moves with the clock: the canvas is painted again and again.
  await countCanvasPaints(page);
  await expect.poll(() => canvasPaints(page)).toBeGreaterThan(3);

  // Replay at the latest moment: from here on the page holds still while the workers go on.
  await fenced.zoomOutTo(56);
  await replay.pressOnSlider('End');
  await expect(replay.tableCaptions.first()).toHaveText(/^as at [\d.]+ s \(replay\)$/);
  await expect(replay.tableCaptions).toHaveCount(2);
  await expect(replay.backToLive).toBeVisible();
  const writesAtEnd = await fenced.markNames(fenced.writeMarks);
  const marksAtEnd = await fenced.markNames();
  const rowAtEnd = await fenced.rowValue().textContent();
  expect(writesAtEnd.filter((name) => name.startsWith("A's write")).length).toBeGreaterThan(0);
  expect(writesAtEnd.filter((name) => name.startsWith("B's write")).length).toBeGreaterThan(0);
  // Still the same once the page holds a later write of B's, though B goes on writing live: the
  // database has a write of B's after the moment shown, and the page's history reaches past it.
  const shownSeconds = await replay.momentSeconds();
  // Held still, the canvas is not painted again while the lab goes on and its events come in.
  await countCanvasPaints(page);
  const laterWriteMs = await waitFor(
    async () => {
      const events = await readLabEvents('fenced');
      const from = Math.min(...events.map((event) => event.at));
      const later = events.find(
        (event) =>
          event.actor === 'B' && event.kind === 'write_accepted' && event.at - from > shownSeconds * 1000 + 200,
      );
      return later && later.at - from;
    },
    "a write of B's after the moment shown",
    { timeoutMs: WORKER_STEP_TIMEOUT },
  );
  // The slider's "of 41.3 s" is the page's whole history, to a tenth: a tenth past the write, the page has it.
  const tenths = (seconds: number) => Math.round(seconds * 10);
  await expect
    .poll(async () => tenths(await replay.historySeconds()), { timeout: WORKER_STEP_TIMEOUT })
    .toBeGreaterThanOrEqual(Math.ceil(laterWriteMs / 100) + 1);
  expect(await replay.momentSeconds()).toBe(shownSeconds);
  expect(await fenced.markNames(fenced.writeMarks)).toEqual(writesAtEnd);
  expect(await canvasPaints(page)).toBe(0);

  // The window dragged to a screen of twice the pixel density (no resize comes): the held drawing is
  // painted again at that density, not left blurred; and back. The density is Chromium's own (CDP's
  // emulation); its media query's change event is dispatched by hand, since the emulation changes the
  // density without one (checked 12-07: it fires only with a change of size, which a resize covers).
  const cdp = await page.context().newCDPSession(page);
  const density = async (deviceScaleFactor: number) => {
    await cdp.send('Emulation.setDeviceMetricsOverride', {
      width: 1280,
      height: 720,
      deviceScaleFactor,
      mobile: false,
    });
    await page.waitForFunction((n) => window.devicePixelRatio === n, deviceScaleFactor);
    await page.evaluate(() => {
      // A snapshot: a listener asks a new query, for the new density.
      for (const query of [...(window as unknown as { densityQueries: MediaQueryList[] }).densityQueries])
        query.dispatchEvent(new Event('change'));
    });
  };
  const backingPerPixel = () =>
    page.locator('canvas').evaluate((c: HTMLCanvasElement) => c.width / c.getBoundingClientRect().width);
  expect(await backingPerPixel()).toBe(1);
  await density(2);
  await expect.poll(backingPerPixel, { message: 'the canvas at twice the density' }).toBe(2);
  await density(1);
  await expect.poll(backingPerPixel, { message: 'the canvas back at one' }).toBe(1);
  await cdp.detach();
  await page.setViewportSize({ width: 1280, height: 720 }); // Playwright's own emulation again, whole

  // Exports, of the history up to the replayed moment.
  await expect(replay.exportArea).toContainText('Up to the replay moment');
  const svg = await replay.download(replay.exportSvg);
  expect(svg.fileName).toMatch(FILE_NAME('svg'));
  // As on screen (the light theme here), or dark on request.
  expect(await parseSvg(page, svg.text)).toEqual({
    error: null,
    root: 'svg',
    holders: ['A', 'B', 'database'], // every lane's name, the database's too
    background: '#ffffff',
  });
  await replay.exportArea.getByLabel('Theme (SVG, PNG)').selectOption('dark');
  const darkSvg = await replay.download(replay.exportSvg);
  expect((await parseSvg(page, darkSvg.text)).background).toBe('#020617'); // slate-950, the dark theme's
  await replay.exportArea.getByLabel('Theme (SVG, PNG)').selectOption('as on screen');

  const png = await replay.download(replay.exportPng);
  expect(png.fileName).toMatch(FILE_NAME('png'));
  expect(png.bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(png.bytes.readUInt32BE(16)).toBe(2 * 1280); // the IHDR width: twice the SVG's, for slides

  const json = await replay.download(replay.exportJson);
  expect(json.fileName).toMatch(FILE_NAME('json'));
  const history = JSON.parse(json.text) as HistoryFile;
  expect(history.lab).toEqual({ id: 'fenced', kind: 'fenced', title: 'Fenced' });
  expect(history.events.filter((event) => isWrite(event.kind))).toHaveLength(writesAtEnd.length);

  const report = await replay.download(replay.checkerReport);
  expect(report.fileName).toMatch(FILE_NAME('md'));
  expect(report.text).toMatch(/^# Checker report: Fenced \(`fenced`\)/);
  const accepted = writesAtEnd.filter((name) => name.includes(': accepted.')).length;
  expect(report.text).toContain(`**SAFE: no violation in ${accepted} write${accepted === 1 ? '' : 's'} and`);

  // Back to the first event: fewer writes, the tables at that moment, and the address says where.
  const from = Math.min(...history.events.map((event) => event.at));
  await replay.pressOnSlider('Home');
  await expect(replay.tableCaptions.first()).toHaveText('as at 0.0 s (replay)');
  const writesAtStart = history.events.filter((event) => isWrite(event.kind) && event.at <= from).length;
  await expect(fenced.writeMarks).toHaveCount(writesAtStart);
  expect(writesAtStart).toBeLessThan(writesAtEnd.length);
  await expect(page).toHaveURL(/\/labs\/fenced\?at=0$/, { timeout: 5_000 });
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await replay.copyLink.click();
  await expect(replay.copied).toHaveText(/^Copied: http:\/\/[^/]+\/labs\/fenced\?at=0$/);
  expect(await page.evaluate(() => navigator.clipboard.readText())).toMatch(/\/labs\/fenced\?at=0$/);

  // A permalink to A's first write, opened by a watcher: the lab replays at that moment.
  const firstWrite = history.events.find((event) => event.kind === 'write_accepted');
  if (!firstWrite) throw new Error('the history has no accepted write');
  const offset = firstWrite.at - from;
  const viewerContext = await browser.newContext();
  try {
    const viewerPage = await viewerContext.newPage();
    const viewer = new LabPage(viewerPage, 'fenced');
    const viewerReplay = new ReplayControls(viewerPage);
    await viewerPage.goto(`/labs/fenced?at=${offset}`);
    await expect(viewerPage.getByTestId('drive-status')).toHaveText('Watching');
    await expect(viewerReplay.tableCaptions.first()).toHaveText(`as at ${(offset / 1000).toFixed(1)} s (replay)`, {
      timeout: WORKER_STEP_TIMEOUT,
    });
    await expect(viewer.writeMarks).toHaveCount(
      history.events.filter((event) => isWrite(event.kind) && event.at <= firstWrite.at).length,
    );
    await expect(viewer.rowValue()).toHaveText(String(firstWrite.detail.value));
    await expect(viewer.leaseHolder()).toHaveText('A');
    // The slider says the permalink's moment to a tenth, as the caption does (toFixed(1): 50 ms is "0.1 s").
    expect(await viewerReplay.momentSeconds()).toBe(Number((offset / 1000).toFixed(1)));
    // Back to live: the tables are the database's again, and the address no longer names a moment.
    await viewerReplay.backToLive.click();
    await expect(viewerReplay.tableCaptions).toHaveCount(0);
    await expect(viewer.leaseHolder()).toHaveText('B');
    await expect(viewerPage).toHaveURL(/\/labs\/fenced$/, { timeout: 5_000 });
  } finally {
    await viewerContext.close();
  }

  // The exported history, opened on /replay: the same timeline, entirely from the file.
  const imported = new ImportPage(page);
  const importedLab = new LabPage(page, 'fenced');
  await imported.goto();
  await imported.open(json.fileName, json.text);
  await expect(imported.replayedFile).toContainText(json.fileName);
  // It opens fitted to the file's history (all of it, with a little air: a quarter of the window, most of
  // it on the right for the last write's label, components/lab/lab-store.ts FIT_AIR), not at the live window.
  const times = (JSON.parse(json.text) as { events: { at: number }[] }).events.map((e) => e.at);
  const spanS = (Math.max(...times) - Math.min(...times)) / 1000;
  const shownS = Number((await importedLab.shownSpan.textContent())?.match(/^showing ([\d.]+) s$/)?.[1]);
  expect(shownS).toBeGreaterThan(spanS);
  expect(shownS).toBeLessThan(Math.max(2, spanS * 1.4));
  await expect(replay.tableCaptions).toHaveCount(2);
  await expect(importedLab.writeMarks).toHaveCount(writesAtEnd.length);
  expect(await importedLab.markNames(importedLab.writeMarks)).toEqual(writesAtEnd);
  expect(await importedLab.markNames()).toEqual(marksAtEnd);
  await expect(importedLab.rowValue()).toHaveText(rowAtEnd ?? '');
  await expect(replay.backToLive).toHaveCount(0); // a file has no live end

  // A file that is not a history is refused in words, and the replay on screen stays.
  await imported.open('notes.json', '{"format":"something else"}');
  await expect(imported.error).toContainText('notes.json was not opened: not a Fencing Lab history');
  await expect(imported.error).toContainText('The replay below is unchanged.');
  expect(await importedLab.markNames(importedLab.writeMarks)).toEqual(writesAtEnd);
  await expect(imported.replayedFile).toContainText(json.fileName);

  // Its slider too: at the first event, fewer writes.
  await replay.pressOnSlider('Home');
  await expect(importedLab.writeMarks).toHaveCount(writesAtStart);
});
