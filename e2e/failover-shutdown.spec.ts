import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { processesOf } from '../lib/supervisor/failover/pg-server-process';
import { startAppProcess } from '../lib/testing/app-process';
import { waitFor } from '../lib/testing/wait';
import { enterTrainerKey } from './trainer-link';

/*
 * The failover lab's servers end with the app: after `kill -9` of the Next server that owns the pair,
 * and after Ctrl-C of `npm start`, no PostgreSQL process of any pair remains. An app of its own (its
 * own port and data directory), since the test kills it.
 */

const TRAINER_KEY = 'failover-shutdown-key';

async function pairProcesses(dataDir: string): Promise<number[]> {
  const parent = path.join(dataDir, 'failover');
  const pairs = await readdir(parent).catch(() => [] as string[]);
  const found: number[] = [];
  for (const pair of pairs) {
    for (const server of ['primary', 'standby']) found.push(...(await processesOf(path.join(parent, pair, server))));
  }
  return found;
}

async function startPair(page: Page) {
  await page.goto('/labs/failover');
  await page.getByRole('button', { name: 'Start the pair (asynchronous)' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Start the pair (asynchronous): done' })).toBeVisible({
    timeout: 60_000,
  });
  await expect(page.getByRole('row', { name: /^standby\b/ })).toContainText('"initial", 0');
}

test('kill -9 of the Next server, then Ctrl-C of npm start: no process of the failover pair remains', async ({
  browser,
}) => {
  test.setTimeout(400_000);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'fencing-lab-failover-shutdown-'));
  await chmod(dataDir, 0o755);
  const app = await startAppProcess({ dataDir, env: { FENCING_LAB_TRAINER_KEY: TRAINER_KEY } });
  const context = await browser.newContext({ baseURL: app.baseUrl });
  try {
    const page = await context.newPage();
    await enterTrainerKey(page, TRAINER_KEY);
    await startPair(page);
    expect((await pairProcesses(dataDir)).length).toBeGreaterThanOrEqual(6);

    process.kill(await app.nextPid(), 'SIGKILL');
    await waitFor(async () => (await pairProcesses(dataDir)).length === 0, 'the pair to end with its Next server');

    // The launcher starts Next again; a new pair, then Ctrl-C of the whole app.
    await waitFor(async () => (await app.health()).startsWith('200'), 'the Next server to be back', {
      timeoutMs: 60_000,
    });
    await startPair(page);
    expect((await pairProcesses(dataDir)).length).toBeGreaterThanOrEqual(6);
    expect(
      await readdir(path.join(dataDir, 'failover')),
      'the killed server’s pair directory was removed by the new start',
    ).toHaveLength(1);
    await app.stop();
    await waitFor(async () => (await pairProcesses(dataDir)).length === 0, 'the pair to end with npm start');
  } finally {
    await context.close();
    await app.stop().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
  }
});
