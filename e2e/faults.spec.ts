import { type Browser, expect, test } from '@playwright/test';
import type { AppProcess } from '../lib/testing/app-process';
import { debianPostgresAvailable, type ExternalPostgres, startExternalPostgres } from '../lib/testing/debian-postgres';
import { startRemoteWorker } from '../lib/testing/remote-worker-process';
import {
  expectBothDraw,
  expectMarksMatchDatabase,
  firstWriteAfter,
  freezeWorkers,
  lastEventId,
  openRoom,
  type Room,
  startFaultApp,
} from './fault-room';
import { WORKER_STEP_TIMEOUT } from './pages/lab-page';
import { workerLineFromPage } from './worker-line';

/*
 * The room survives the faults it teaches. Each test runs its own app (`npm start` on a port and
 * data directory of its own) and crashes a part of it for real, with `kill -9`, while a trainer's
 * page and a watcher's page are open: without a reload, both pages go on drawing the lab, and what
 * they draw is what the events table holds, one mark per event.
 */

test.describe.configure({ timeout: 300_000 });

/** How long the DATABASE_URL test keeps its server down. */
const OUTAGE_MS = 6_000;

let app: AppProcess | undefined;
let external: ExternalPostgres | undefined;
let room: Room | undefined;

// biome-ignore lint/correctness/noEmptyPattern: Playwright reads a hook's fixtures from this pattern.
test.afterEach(async ({}, testInfo) => {
  if (app && testInfo.status !== testInfo.expectedStatus) {
    await testInfo.attach('app output', { body: app.output(), contentType: 'text/plain' });
    console.log(`--- output of the app under test ---\n${app.output()}`);
  }
  await room?.close();
  await app?.stop();
  await external?.dispose();
  room = undefined;
  app = undefined;
  external = undefined;
});

/** Two workers writing the fenced lab, seen by the trainer and by a watcher. */
async function twoWorkersWriting(current: AppProcess, browser: Browser): Promise<Room> {
  const opened = await openRoom(browser, current.baseUrl);
  room = opened;
  await opened.trainer.reset(); // a clean start: no worker, no history
  await opened.trainer.startWorker('A', 2);
  await opened.trainer.waitForLeaseHolder('A');
  await opened.trainer.startWorker('B', 2);
  await expect(opened.watcher.writeMark('A', 'accepted', { value: 'A-3' })).toBeVisible({
    timeout: WORKER_STEP_TIMEOUT,
  });
  return opened;
}

/** Until `probe` says `want` (polling), e.g. the app's health. */
async function until(probe: () => Promise<string>, want: string, timeout = 60_000): Promise<void> {
  await expect.poll(probe, { timeout, intervals: [100] }).toBe(want);
}

test('the embedded database killed with kill -9: both pages draw new writes again, nothing lost or doubled', async ({
  browser,
}) => {
  app = await startFaultApp();
  const current = app;
  const open = await twoWorkersWriting(current, browser);

  const postmaster = await current.postmasterPid();
  process.kill(postmaster, 'SIGKILL');
  await until(async () => ((await current.postmasterPid()) !== postmaster ? 'restarted' : 'waiting'), 'restarted');
  await until(() => current.health(), '200 up');

  // Without a reload, each page draws a write made after the database was back.
  const back = await lastEventId(current.databaseUrl);
  await expectBothDraw(open, await firstWriteAfter(current.databaseUrl, back));
  expect(await current.health()).toBe('200 up');

  // With the workers frozen the history stands still: each page holds every write once.
  await freezeWorkers(open.trainer, ['A', 'B']);
  await expectMarksMatchDatabase(open, current.databaseUrl);
  expect(current.output()).toMatch(/PostgreSQL \d+ exited unexpectedly/);
  expect(current.output().match(/expiry recording failed/g)?.length ?? 0).toBeLessThanOrEqual(1);
});

test('DATABASE_URL: the server it names is killed and started again, both pages draw new writes again', async ({
  browser,
}) => {
  test.skip(
    !debianPostgresAvailable(),
    "needs Debian's PostgreSQL 15 server binaries in /usr/lib/postgresql/15/bin (apt-get install postgresql-15)",
  );
  external = await startExternalPostgres();
  const server = external;
  app = await startFaultApp({ databaseUrl: server.url });
  const current = app;
  const open = await twoWorkersWriting(current, browser);

  await server.crash();
  await until(async () => ((await current.health()) === '200 up' ? 'up' : 'not up'), 'not up', 10_000);
  // Away for longer than a browser waits before it reconnects a dropped feed (about 3 s): the pages'
  // reconnects meet a server without its database, as they would after a real crash.
  await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
  expect(await current.health()).toBe('503 down');
  await server.start();
  await until(() => current.health(), '200 up');

  const back = await lastEventId(current.databaseUrl);
  await expectBothDraw(open, await firstWriteAfter(current.databaseUrl, back));
  await freezeWorkers(open.trainer, ['A', 'B']);
  await expectMarksMatchDatabase(open, current.databaseUrl);
});

test('the Next server killed with kill -9: the launcher starts it again and the open pages resume', async ({
  browser,
}) => {
  app = await startFaultApp();
  const current = app;
  const open = await openRoom(browser, current.baseUrl);
  room = open;
  await open.trainer.reset(); // a clean start: no worker, no history
  await open.trainer.page.getByTestId('remote-workers-open').check(); // the trainer lets remote workers in
  await expect(open.trainer.page.getByTestId('remote-workers-open')).toBeEnabled(); // the server has it
  // A worker from a shell (as on another machine) outlives the server: it writes on while the server
  // is away, and the pages must catch up with it once the new server answers.
  const lineUrl = await workerLineFromPage(open.trainer.page, 'fenced');
  const far = startRemoteWorker(['--db', lineUrl, '--lab', 'fenced', '--name', 'Far']);
  try {
    await far.pid();
    await expect(open.watcher.writeMark('Far', 'accepted').first()).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });

    const nextPid = await current.nextPid();
    const before = await lastEventId(current.databaseUrl);
    process.kill(nextPid, 'SIGKILL');
    await until(async () => ((await current.nextPid()) !== nextPid ? 'restarted' : 'waiting'), 'restarted');
    await until(() => current.health(), '200 up');
    expect(current.output()).toMatch(/the Next server exited unexpectedly \(SIGKILL\)/);

    // Writes made while the server was away and after it came back reach both pages, without a reload.
    await expectBothDraw(open, await firstWriteAfter(current.databaseUrl, before));
    const afterRestart = await lastEventId(current.databaseUrl);
    await expectBothDraw(open, await firstWriteAfter(current.databaseUrl, afterRestart));
    await freezeWorkers(open.trainer, ['Far']);
    await expectMarksMatchDatabase(open, current.databaseUrl);
  } finally {
    await far.stop(0); // frozen on purpose: it would handle a SIGTERM only once thawed
  }
});
