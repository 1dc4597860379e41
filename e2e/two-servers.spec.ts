import { type Browser, type BrowserContext, expect, test } from '@playwright/test';
import pg from 'pg';
import type { AppProcess } from '../lib/testing/app-process';
import { appDatabaseUrl } from './app-database';
import { FAULT_TRAINER_KEY, startFaultApp } from './fault-room';
import { LabPage, WORKER_STEP_TIMEOUT } from './pages/lab-page';
import { SessionPage } from './pages/session-page';
import { enterTrainerKey } from './trainer-link';

/*
 * Many app servers, one database: two `npm start` servers on the same DATABASE_URL (the shared
 * Playwright app's PostgreSQL, which neither of them owns, so that either can be stopped). A trainer
 * on the second drives a worker the first started, a watcher on the first sees it happen live, and
 * stopping either server leaves the other with every lab's history.
 */

/** The second server's port: FAULT_APP_PORT + 2 when a developer keeps their ports apart, else any free one. */
const SECOND_APP_PORT = process.env.FAULT_APP_PORT ? Number(process.env.FAULT_APP_PORT) + 2 : undefined;
const FROZEN = /^W frozen/;

async function pageOn(browser: Browser, contexts: BrowserContext[], app: AppProcess, asTrainer: boolean) {
  const context = await browser.newContext({ baseURL: app.baseUrl, viewport: { width: 1280, height: 720 } });
  contexts.push(context);
  const page = await context.newPage();
  if (asTrainer) await enterTrainerKey(page, FAULT_TRAINER_KEY);
  const lab = new LabPage(page, 'fenced');
  await lab.gotoFreePlay();
  await expect(new SessionPage(page).driveStatus).toHaveText(asTrainer ? 'Trainer: you drive' : 'Watching');
  return lab;
}

async function eventCount(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM events WHERE lab = 'fenced'");
    return Number(rows[0]?.n);
  } finally {
    await client.end();
  }
}

test('a trainer on the second server pauses and resumes a worker the first started; a watcher on the first sees it live', async ({
  browser,
}) => {
  test.setTimeout(360_000);
  const databaseUrl = await appDatabaseUrl();
  const apps: AppProcess[] = [];
  const contexts: BrowserContext[] = [];
  try {
    const first = await startFaultApp({ databaseUrl });
    apps.push(first);
    const second = await startFaultApp({ databaseUrl, ...(SECOND_APP_PORT ? { port: SECOND_APP_PORT } : {}) });
    apps.push(second);

    const trainerOnFirst = await pageOn(browser, contexts, first, true);
    await trainerOnFirst.reset();
    await trainerOnFirst.startWorker('W', 3);
    await expect(trainerOnFirst.writeMark('W', 'accepted').first()).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });

    const watcherOnFirst = await pageOn(browser, contexts, first, false);
    const trainerOnSecond = await pageOn(browser, contexts, second, true);
    // The second server shows the worker the first started, as a worker of the lab like any other.
    await expect(trainerOnSecond.worker('W')).toHaveAccessibleName(/^W (holds the lease|waiting for the lease)/, {
      timeout: WORKER_STEP_TIMEOUT,
    });

    await trainerOnSecond.worker('W').check();
    await trainerOnSecond.pauseUntilResumed.click();
    await expect(trainerOnSecond.notice).toHaveText(/W is frozen until resumed\./, { timeout: WORKER_STEP_TIMEOUT });
    // On the first server, whose process it is: the watcher sees the freeze, the trainer's list too.
    await expect(watcherOnFirst.markTitled(FROZEN)).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });
    await expect(trainerOnFirst.worker('W')).toHaveAccessibleName(FROZEN, { timeout: WORKER_STEP_TIMEOUT });
    const writesWhileFrozen = await watcherOnFirst.writeMark('W', 'accepted').count();

    await trainerOnSecond.resume.click();
    await expect(trainerOnSecond.notice).toHaveText(/W resumed\./, { timeout: WORKER_STEP_TIMEOUT });
    // The freeze now has an end, and W writes again: the watcher on the first server sees both.
    await expect(watcherOnFirst.markTitled(/^W frozen.* to .*\(\d/)).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });
    await expect
      .poll(() => watcherOnFirst.writeMark('W', 'accepted').count(), { timeout: WORKER_STEP_TIMEOUT })
      .toBeGreaterThan(writesWhileFrozen);

    // The second server goes: the first, and its worker, carry on, with the whole history.
    await second.stop();
    apps.splice(apps.indexOf(second), 1);
    const before = await watcherOnFirst.writeMark('W', 'accepted').count();
    await expect
      .poll(() => watcherOnFirst.writeMark('W', 'accepted').count(), { timeout: WORKER_STEP_TIMEOUT })
      .toBeGreaterThan(before);
    await trainerOnFirst.worker('W').check();
    await trainerOnFirst.pauseUntilResumed.click();
    await expect(trainerOnFirst.notice).toHaveText(/W is frozen until resumed\./, { timeout: WORKER_STEP_TIMEOUT });
    const history = await eventCount(databaseUrl);
    expect(history).toBeGreaterThan(0);

    // And the other way round: a new second server, then the first goes (its worker with it), and
    // the second still shows every event of the lab's history, and drives the lab.
    const again = await startFaultApp({ databaseUrl, ...(SECOND_APP_PORT ? { port: SECOND_APP_PORT } : {}) });
    apps.push(again);
    const trainerOnAgain = await pageOn(browser, contexts, again, true);
    await first.stop();
    apps.splice(apps.indexOf(first), 1);
    expect(await eventCount(databaseUrl)).toBeGreaterThanOrEqual(history);
    await expect(trainerOnAgain.markTitled(FROZEN).first()).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });
    // W ran on the first server and went with it; the second restarts it as its own.
    await expect(trainerOnAgain.worker('W')).toHaveAccessibleName(/^W stopped/, { timeout: WORKER_STEP_TIMEOUT });
    await trainerOnAgain.worker('W').check();
    await trainerOnAgain.restart.click();
    await expect(trainerOnAgain.worker('W')).toHaveAccessibleName(/^W (holds the lease|waiting for the lease)/, {
      timeout: WORKER_STEP_TIMEOUT,
    });
    await trainerOnAgain.reset();
  } finally {
    await Promise.all(contexts.map((context) => context.close()));
    for (const app of apps) await app.stop();
  }
});
