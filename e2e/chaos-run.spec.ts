import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tallyChaos } from '../lib/model/chaos/chaos-tally';
import { serializeHistory } from '../lib/model/history/history-file';
import { type SoakResult, soakHtml } from '../lib/model/soak/soak-report';
import { soakHistoryHref, soakReportId } from '../lib/model/soak/soak-reports';
import { judgeLab, LAB_EXPECTATIONS } from '../lib/model/soak/soak-verdict';
import { E2E_DATA_DIR } from '../playwright.config';
import { expect, test } from './fixtures';
import { WORKER_STEP_TIMEOUT } from './pages/lab-page';

test('a chaos run from the fenced lab page makes stale writes, and says how many it made and that none got through', async ({
  page,
  lab,
}) => {
  test.setTimeout(120_000);
  const fenced = lab('fenced');
  await fenced.gotoFreePlay();
  const panel = page.locator('details', { has: page.getByText('Chaos run', { exact: true }) });
  await panel.getByText('Chaos run', { exact: true }).click();
  await panel.getByLabel('Seconds').fill('10');
  await panel.getByRole('button', { name: 'Run chaos' }).click();
  const status = panel.getByRole('status');
  // Said once the lab is reset and its five workers started, at the next once-a-second reading.
  await expect(status).toHaveText(/^Running: seed 42, 5 workers/, { timeout: WORKER_STEP_TIMEOUT });
  await expect(status).toHaveText(
    /^Last run \(seed 42\): [1-9]\d* stale write attempts \([\d.]+ a minute\), 0 accepted; \d+ writes accepted, no violation\.$/,
    { timeout: 60_000 },
  );
});

test('the soak reports in the data directory are listed at /soak, and each opens with its histories', async ({
  page,
}) => {
  const id = soakReportId(new Date(), 7);
  const dir = path.join(E2E_DATA_DIR, 'soak', id);
  await mkdir(dir, { recursive: true });
  const totals = { ...tallyChaos([], 60_000), staleAttempts: 1_234, heldConnections: 0, databaseCrashes: 3 };
  const soak: SoakResult = {
    id,
    startedAt: new Date().toISOString(),
    finishedAt: new Date().toISOString(),
    seed: 7,
    minutes: 1,
    load: { start: [1, 1, 1], end: [1, 1, 1], cpus: 2 },
    labs: [
      {
        lab: 'fenced',
        title: 'Fenced',
        seed: 7,
        seconds: 60,
        rounds: 1,
        workers: 5,
        totals,
        violations: [],
        named: [],
        judgement: judgeLab('fenced', { violations: [] }, totals),
        expected: LAB_EXPECTATIONS.fenced.why,
        historyFile: 'history-fenced.json',
      },
    ],
  };
  await writeFile(path.join(dir, 'report.json'), JSON.stringify(soak));
  await writeFile(
    path.join(dir, 'report.html'),
    soakHtml(soak, (lab) => soakHistoryHref(id, lab)),
  );
  const history = serializeHistory({
    lab: { id: 'fenced', kind: 'fenced', title: 'Fenced' },
    events: [],
    exportedAt: new Date(),
  });
  await writeFile(path.join(dir, 'history-fenced.json'), history);
  try {
    await page.goto('/soak');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Fencing Lab · Soak reports');
    const link = page.getByRole('link', { name: id });
    await expect(link.locator('..')).toContainText(
      'every lab as expected; 1 min, seed 7; 1,234 stale writes attempted, 0 accepted in the fenced labs',
    );
    await link.click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Soak ${id}: every lab as expected`);
    await expect(page.getByRole('row', { name: /^fenced 7 safe: 1234 stale write attempts/ })).toBeVisible();
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download the history' }).click();
    const file = await (await download).path();
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
      format: 'fencing-lab-history',
      lab: { id: 'fenced' },
    });
    // A path instead of an id finds nothing.
    expect((await page.request.get(`/soak/${encodeURIComponent(`../soak/${id}`)}`)).status()).toBe(404);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
