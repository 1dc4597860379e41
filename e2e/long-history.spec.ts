import type { Page } from '@playwright/test';
import pg from 'pg';
import { findServerPid, residentBytes } from '../bench/server-memory';
import { E2E_DATA_DIR } from '../playwright.config';
import { appDatabaseUrl } from './app-database';
import { expect, test } from './fixtures';

/*
 * A viewer joining a lab with 200,000 events: the page is drawn, and the server sends the history
 * a page at a time as the browser reads it, so that its memory grows by an amount that does not
 * follow the history's size. The server's resident memory is sampled from /proc. Twice: the page
 * reads the history in one download (app/api/labs/[lab]/history) and then follows the live feed;
 * when that download fails (here the browser's request is aborted, as a reverse proxy that drops it
 * would), the live feed reads the whole history itself.
 */

const PORT = Number(process.env.E2E_PORT ?? 3210);
const LAB = 'per-process-counter';
const EVENTS = 200_000;
const MB = 1024 * 1024;
/**
 * What the server may grow by while it serves the history. Measured here with 200,000 events (65-68 MB
 * as rows): +56 to +131 MB paged over six runs (when the garbage is collected varies); +332 MB for
 * the code before paging, which read and queued the whole history at once. With 100,000 events
 * paging gave +25 to +106 MB, the code before it +172 MB: the growth does not follow the history's size.
 * Pages of about 1 MB (one message each) instead of 500 events: +116 and +114 MB (2026-12-01, two runs).
 */
const GROWTH_BOUND_BYTES = 200 * MB;

for (const download of ['read', 'refused'] as const) {
  test(`a viewer joining a lab with 200,000 events, the history download ${download}: the page is drawn and the server memory stays bounded`, async ({
    page,
  }) => {
    await viewLongHistory(page, download);
  });
}

async function viewLongHistory(page: Page, download: 'read' | 'refused'): Promise<void> {
  test.setTimeout(240_000);
  const db = new pg.Client({ connectionString: await appDatabaseUrl() });
  await db.connect();
  try {
    await db.query('DELETE FROM events WHERE lab = $1', [LAB]);
    // The server warmed up first (the page and the feed loaded once): what grows next is the history's doing.
    const status = page.getByTestId('room-status').getByRole('status');
    await page.goto(`/labs/${LAB}`);
    await expect(status).toHaveText('Live');
    await page.goto('about:blank');
    await db.query(
      `INSERT INTO events (lab, actor, kind, detail)
       SELECT $1, 'T', 'write_sent', jsonb_build_object('value', 'history-' || n, 'note', repeat('x', 100))
         FROM generate_series(1, $2) n`,
      [LAB, EVENTS],
    );
    const { rows } = await db.query<{ bytes: string }>(
      `SELECT sum(length(row_to_json(e)::text))::bigint AS bytes FROM events e WHERE lab = $1`,
      [LAB],
    );
    const historyBytes = Number(rows[0]?.bytes);

    const downloads: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/history?')) downloads.push(request.url());
    });
    if (download === 'refused') await page.route('**/api/labs/*/history?*', (route) => route.abort());
    const pid = findServerPid(E2E_DATA_DIR, PORT);
    const before = residentBytes(pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, residentBytes(pid));
    }, 50);
    try {
      await page.goto(`/labs/${LAB}`);
      await expect(status).toHaveText('Live', { timeout: 180_000 });
      await expect(
        page
          .getByRole('region', { name: /^Timeline/ })
          .getByRole('button')
          .first(),
      ).toBeVisible();
    } finally {
      clearInterval(sampler);
    }
    const growth = peak - before;
    console.log(
      `history ${(historyBytes / MB).toFixed(1)} MB as rows; server RSS ${(before / MB).toFixed(0)} MB before, peak ${(peak / MB).toFixed(0)} MB (+${(growth / MB).toFixed(1)} MB)`,
    );
    expect(growth).toBeLessThan(GROWTH_BOUND_BYTES);
    // The page's preload and its read are one request.
    if (download === 'read') expect(downloads).toHaveLength(1);
  } finally {
    await page.unrouteAll();
    await page.goto('about:blank');
    await db.query('DELETE FROM events WHERE lab = $1', [LAB]);
    await db.end();
  }
}
