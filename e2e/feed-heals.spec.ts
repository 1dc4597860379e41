import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import pg from 'pg';
import { crashPostmaster, startEmbeddedPostgres } from '../lib/launcher/embedded-postgres';
import type { HistoryFile } from '../lib/model/history/history-file';
import { startAppProcess } from '../lib/testing/app-process';
import { startTestCluster, type TestCluster } from '../lib/testing/test-cluster';
import { expect, test } from './fixtures';
import { ReplayControls } from './pages/replay-page';

/*
 * A page keeps its feed whatever happens behind it, without a reload: its database killed and
 * started again, then the app started again on another database. It says so in words, and what it
 * holds matches the database it now shows, event for event. The app runs here on a PostgreSQL of
 * this test's own (DATABASE_URL), on the port after E2E_PORT, since the test kills both.
 */

const APP_PORT = Number(process.env.E2E_PORT ?? 3210) + 1;
const LAB = 'fenced';
const HEAL_TIMEOUT_MS = 30_000;

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const addEvents = (url: string, values: string[]) =>
  withClient(url, async (client) => {
    for (const value of values) {
      await client.query(`INSERT INTO events (lab, actor, kind, detail) VALUES ($1, 'T', 'write_sent', $2)`, [
        LAB,
        JSON.stringify({ value }),
      ]);
    }
  });

const idsIn = (url: string) =>
  withClient(url, async (client) =>
    (await client.query<{ id: string }>('SELECT id FROM events WHERE lab = $1 ORDER BY id', [LAB])).rows.map((r) =>
      Number(r.id),
    ),
  );

/** The ids of the events the page holds, as its own export writes them. */
async function idsOnPage(page: Page): Promise<number[]> {
  const json = await new ReplayControls(page).download(new ReplayControls(page).exportJson);
  return (JSON.parse(json.text) as HistoryFile).events.map((event) => event.id);
}

test('the page heals by itself after its database is killed and back, and after the app moves to another database', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const appDir = await mkdtemp(path.join(os.tmpdir(), 'fencing-lab-e2e-feed-'));
  const clusters: TestCluster[] = [];
  let stopApp: (() => Promise<void>) | undefined;
  try {
    const first = await startTestCluster('e2e-feed-first');
    clusters.push(first);
    const app = await startAppProcess({ dataDir: appDir, port: APP_PORT, databaseUrl: first.url });
    stopApp = app.stop;
    await withClient(first.url, (c) => c.query('DELETE FROM events WHERE lab = $1', [LAB]));
    await addEvents(first.url, ['first-1', 'first-2', 'first-3']);

    await page.goto(`${app.baseUrl}/labs/${LAB}`);
    const status = page.getByTestId('room-status').getByRole('status');
    await expect(status).toHaveText('Live');
    await expect.poll(() => idsOnPage(page)).toEqual(await idsIn(first.url));

    // The database dies under the open page: it says it is reconnecting, then live again.
    await crashPostmaster(first);
    await expect(status).toHaveText(/^Reconnecting…/, { timeout: HEAL_TIMEOUT_MS });
    await startEmbeddedPostgres({ dataDir: first.dataDir, preferredPort: first.port });
    await expect(status).toHaveText('Live again', { timeout: HEAL_TIMEOUT_MS });
    await addEvents(first.url, ['first-4', 'first-5']);
    const firstIds = await idsIn(first.url);
    expect(firstIds).toHaveLength(5);
    await expect.poll(() => idsOnPage(page), { timeout: HEAL_TIMEOUT_MS }).toEqual(firstIds);

    // The app comes back on another database, whose ids start again from 1: the page notices and
    // shows that database's history, not a mix of both and not with events dropped.
    await app.stop();
    stopApp = undefined;
    await expect(status).toHaveText(/^Reconnecting…/, { timeout: HEAL_TIMEOUT_MS });
    const second = await startTestCluster('e2e-feed-second');
    clusters.push(second);
    const again = await startAppProcess({ dataDir: appDir, port: APP_PORT, databaseUrl: second.url });
    stopApp = again.stop;
    await addEvents(second.url, ['second-1', 'second-2']);
    const secondIds = await idsIn(second.url);
    expect(secondIds[0]).toBeLessThan(firstIds.at(-1) as number);
    await expect(status).toHaveText('Live again', { timeout: HEAL_TIMEOUT_MS });
    await expect.poll(() => idsOnPage(page), { timeout: HEAL_TIMEOUT_MS }).toEqual(secondIds);
  } finally {
    await stopApp?.();
    for (const cluster of clusters) await cluster.dispose();
    await rm(appDir, { recursive: true, force: true });
  }
});

test('a page past the per-address cap of feeds says so, and goes live by itself once a slot is free', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const appDir = await mkdtemp(path.join(os.tmpdir(), 'fencing-lab-e2e-feed-cap-'));
  const app = await startAppProcess({
    dataDir: appDir,
    port: APP_PORT,
    env: { FENCING_LAB_MAX_FEEDS_PER_ADDRESS: '1' },
  });
  const context = await browser.newContext();
  try {
    const first = await context.newPage();
    await first.goto(`${app.baseUrl}/labs/${LAB}`);
    await expect(first.getByTestId('room-status').getByRole('status')).toHaveText('Live');

    const second = await context.newPage();
    await second.goto(`${app.baseUrl}/labs/${LAB}`);
    const status = second.getByTestId('room-status').getByRole('status');
    await expect(status).toHaveText(/too many live feeds are open from this address/, { timeout: HEAL_TIMEOUT_MS });

    await first.close();
    await expect(status).toHaveText(/^Live/, { timeout: HEAL_TIMEOUT_MS });
  } finally {
    await context.close();
    await app.stop();
    await rm(appDir, { recursive: true, force: true });
  }
});
