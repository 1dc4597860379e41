import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from '@playwright/test';
import pg from 'pg';
import { PAUSE_FENCED } from '../lib/labs/traits';
import { openBrowser } from './chromium';
import { type Figure, percentile } from './stats';

/*
 * `npm run bench -- faults [--crashes N]`: the embedded database killed with `kill -9`, N times
 * (5 by default), under a lab page open in Chromium while a worker writes. Each time: from the
 * moment the database accepts connections again (a probe connects every 20 ms) to the first write
 * made after the crash painted on the open page (the frame after its mark is in the DOM), with no
 * reload. The launcher restarts the database; the worker reconnects; the feed heals.
 */

const GOAL_MS = 5_000;
/** A crash whose page has not painted a new write by then counts as missed (and is reported). */
const GIVE_UP_MS = 60_000;
const PROBE_EVERY_MS = 20;
const SETTLE_MS = 3_000;

export async function benchFaults(options: {
  baseUrl: string;
  databaseUrl: string;
  dataDir: string;
  trainerKey: string;
  crashes: number;
}): Promise<Figure[]> {
  const browser = await openBrowser();
  const samples: number[] = [];
  let missed = 0;
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(`${options.baseUrl}/unlock?key=${encodeURIComponent(options.trainerKey)}`);
    await page.goto(`${options.baseUrl}/labs/fenced`);
    const controls = page.getByRole('region', { name: 'Controls', exact: true });
    await controls.getByRole('button', { name: /^Reset lab/ }).click();
    // A shared lab's reset asks first (components/lab/controls/confirm-reset.tsx).
    await page
      .getByRole('dialog', { name: 'Reset the shared lab?' })
      .getByRole('button', { name: 'Reset the lab' })
      .click();
    await controls
      .getByRole('status')
      .filter({ hasText: /The lab was reset/ })
      .waitFor({ timeout: 30_000 });
    await controls.getByLabel('Worker name').fill('A');
    await controls.getByLabel('Lease TTL (s)').fill('2');
    await controls.getByRole('button', { name: /^Start worker/ }).click();
    await page.locator('[data-mark^="write:"]').first().waitFor({ timeout: 30_000 });

    for (let crash = 1; crash <= options.crashes; crash++) {
      const lastId = await lastEventId(options.databaseUrl);
      const painted = paintOfWriteAfter(page, lastId, GIVE_UP_MS);
      const postmasterPid = await readPostmasterPid(options.dataDir);
      process.kill(postmasterPid, 'SIGKILL');
      const acceptingAt = await untilAccepting(options.databaseUrl, postmasterPid, options.dataDir);
      const paintedAt = await painted.catch(() => undefined);
      if (paintedAt === undefined) {
        missed++;
        console.log(`faults: crash ${crash}: no new write painted within ${GIVE_UP_MS / 1000} s`);
      } else {
        samples.push(Math.max(0, paintedAt - acceptingAt));
        console.log(`faults: crash ${crash}: database back → new mark painted in ${paintedAt - acceptingAt} ms`);
      }
      await sleep(SETTLE_MS);
    }
  } finally {
    await browser.close();
  }
  const p50 = percentile(samples, 50);
  const max = samples.length ? Math.max(...samples) : Number.NaN;
  const note = `${samples.length} of ${options.crashes} crashes${missed ? `, ${missed} never painted` : ''}`;
  return [
    {
      name: 'database back → new mark painted, p50',
      value: `${p50.toFixed(0)} ms`,
      goal: '< 5 s',
      met: missed === 0 && p50 < GOAL_MS,
      note,
    },
    {
      name: 'database back → new mark painted, max',
      value: `${max.toFixed(0)} ms`,
      goal: '< 5 s',
      met: missed === 0 && max < GOAL_MS,
    },
  ];
}

async function lastEventId(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string | null }>('SELECT max(id) AS id FROM events WHERE lab = $1', [
      PAUSE_FENCED,
    ]);
    return Number(rows[0]?.id ?? 0);
  } finally {
    await client.end();
  }
}

async function readPostmasterPid(dataDir: string): Promise<number> {
  const owner = JSON.parse(await readFile(path.join(dataDir, 'pg.owner.json'), 'utf8')) as { postmasterPid: number };
  return owner.postmasterPid;
}

/** This machine's clock when a new postmaster (not `crashed`) first accepts a connection and answers. */
async function untilAccepting(databaseUrl: string, crashed: number, dataDir: string): Promise<number> {
  const deadline = Date.now() + GIVE_UP_MS;
  while (Date.now() < deadline) {
    if ((await readPostmasterPid(dataDir).catch(() => crashed)) !== crashed) {
      const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 1_000 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('SELECT 1');
        const at = Date.now();
        await client.end();
        return at;
      } catch {
        await client.end().catch(() => undefined);
      }
    }
    await sleep(PROBE_EVERY_MS);
  }
  throw new Error(`the database did not come back within ${GIVE_UP_MS / 1000} s`);
}

/**
 * This machine's clock at the first frame painted after a write mark newer than `afterId` is in
 * the DOM. Page code is passed as text: tsx would wrap a function in helpers the page does not have.
 */
function paintOfWriteAfter(page: Page, afterId: number, timeoutMs: number): Promise<number> {
  return page.evaluate(`new Promise((resolve, reject) => {
    setTimeout(() => reject(new Error('no new write mark')), ${timeoutMs});
    const isNew = () => [...document.querySelectorAll('[data-mark^="write:"]')]
      .some((mark) => Number(mark.getAttribute('data-mark').slice(6)) > ${afterId});
    const done = () => requestAnimationFrame(() => resolve(Date.now()));
    if (isNew()) return done();
    const observer = new MutationObserver(() => {
      if (!isNew()) return;
      observer.disconnect();
      done();
    });
    observer.observe(document.body, { childList: true, subtree: true });
  })`) as Promise<number>;
}
