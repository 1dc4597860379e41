import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type BrowserContext, expect } from '@playwright/test';
import pg from 'pg';
import { type AppProcess, startAppProcess } from '../lib/testing/app-process';
import { LabPage, WORKER_STEP_TIMEOUT } from './pages/lab-page';
import { SessionPage } from './pages/session-page';
import { enterTrainerKey } from './trainer-link';

/*
 * A training room for the fault tests: an app of its own (`npm start` on its own port and data
 * directory, never the shared Playwright server), a trainer's page that drives the fenced lab and a
 * watcher's page that only watches it, and the events table read straight from Postgres to compare
 * what the pages draw with what the database holds.
 */

export const FAULT_TRAINER_KEY = 'fault-trainer-key';
/** How long a page may take to draw writes again once the database or the server is back. */
export const RESUME_TIMEOUT_MS = 20_000;

export async function startFaultApp(options: { databaseUrl?: string; port?: number } = {}): Promise<AppProcess> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'fencing-lab-faults-'));
  await chmod(dataDir, 0o755);
  // FAULT_APP_PORT lets a developer keep these servers on ports of their own; otherwise any free one.
  const port = options.port ?? (process.env.FAULT_APP_PORT ? Number(process.env.FAULT_APP_PORT) : undefined);
  const app = await startAppProcess({
    dataDir,
    ...(port === undefined ? {} : { port }),
    ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}),
    env: { FENCING_LAB_TRAINER_KEY: FAULT_TRAINER_KEY },
  });
  return {
    ...app,
    stop: async () => {
      await app.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export type Room = { trainer: LabPage; watcher: LabPage; close(): Promise<void> };

/** The trainer unlocks with the key and opens the fenced lab; a watcher opens it in another browser. */
export async function openRoom(browser: Browser, baseUrl: string): Promise<Room> {
  const contexts: BrowserContext[] = [];
  const pageIn = async () => {
    const context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 720 } });
    contexts.push(context);
    return context.newPage();
  };
  const trainerPage = await pageIn();
  await enterTrainerKey(trainerPage, FAULT_TRAINER_KEY);
  const trainer = new LabPage(trainerPage, 'fenced');
  await trainer.gotoFreePlay();
  await expect(new SessionPage(trainerPage).driveStatus).toHaveText('Trainer: you drive');

  const watcherPage = await pageIn();
  const watcher = new LabPage(watcherPage, 'fenced');
  await watcher.gotoFreePlay();
  await expect(new SessionPage(watcherPage).driveStatus).toHaveText('Watching');
  // Every mark since the lab began on screen, so that every one is drawn and can be counted.
  await trainer.zoomOutTo(112);
  await watcher.zoomOutTo(112);
  const close = async () => {
    await Promise.all(contexts.map((context) => context.close()));
  };
  return { trainer, watcher, close };
}

/** One write as the events table holds it, and as its mark on the timeline names it. */
export type Write = { id: number; holder: string; value: string; token: number; accepted: boolean };

export const writeKey = (write: Omit<Write, 'id'>) =>
  `${write.holder} wrote "${write.value}" with token ${write.token}: ${write.accepted ? 'accepted' : 'rejected'}`;

const WRITE_MARK = /^(?:Violation: )?(\S+)'s write "(.*)" with token (\d+): (accepted|rejected as stale)\./;

/** The writes a page draws, as keys (a write drawn twice appears twice). */
export async function drawnWrites(lab: LabPage): Promise<string[]> {
  return (await lab.markNames(lab.writeMarks)).map((name) => {
    const [, holder = '', value = '', token = '', outcome] = name.match(WRITE_MARK) ?? [];
    return writeKey({ holder, value, token: Number(token), accepted: outcome === 'accepted' });
  });
}

/** The fenced lab's writes in the events table after `afterId`, in commit order. Throws while the database is away. */
export async function writesInDatabase(databaseUrl: string, afterId = 0): Promise<Write[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; actor: string; value: string; token: string; kind: string }>(
      `SELECT id, actor, detail->>'value' AS value, token, kind FROM events
        WHERE lab = 'fenced' AND kind IN ('write_accepted', 'write_rejected') AND id > $1 ORDER BY id`,
      [afterId],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      holder: row.actor,
      value: row.value,
      token: Number(row.token),
      accepted: row.kind === 'write_accepted',
    }));
  } finally {
    await client.end();
  }
}

/** The newest event id of the lab right now. */
export async function lastEventId(databaseUrl: string): Promise<number> {
  return (await writesInDatabase(databaseUrl)).at(-1)?.id ?? 0;
}

/** Waits for the first write committed after `afterId` (the database must be back), and returns it. */
export async function firstWriteAfter(databaseUrl: string, afterId: number): Promise<Write> {
  let found: Write | undefined;
  await expect
    .poll(
      async () => {
        found = (await writesInDatabase(databaseUrl, afterId).catch(() => []))[0];
        return found !== undefined;
      },
      { timeout: RESUME_TIMEOUT_MS, intervals: [100] },
    )
    .toBe(true);
  return found as Write;
}

/** Both pages draw `write`, without a reload. */
export async function expectBothDraw(room: Room, write: Write): Promise<void> {
  for (const lab of [room.trainer, room.watcher]) {
    const mark = lab.writeMark(write.holder, write.accepted ? 'accepted' : 'rejected', {
      value: write.value,
      token: write.token,
    });
    await expect(mark, `${lab === room.trainer ? 'the trainer' : 'the watcher'} draws ${writeKey(write)}`).toHaveCount(
      1,
      { timeout: RESUME_TIMEOUT_MS },
    );
  }
}

/** Freezes each worker until resumed, from the trainer's controls: after that, no write can happen. */
export async function freezeWorkers(trainer: LabPage, names: string[]): Promise<void> {
  for (const name of names) {
    await trainer.worker(name).check();
    await trainer.pauseUntilResumed.click({ timeout: WORKER_STEP_TIMEOUT });
    await expect(trainer.worker(name)).toHaveAccessibleName(new RegExp(`^${name} (remote )?frozen`), {
      timeout: WORKER_STEP_TIMEOUT,
    });
  }
}

/** Each page draws exactly the writes the events table holds: none missing, none twice. */
export async function expectMarksMatchDatabase(room: Room, databaseUrl: string): Promise<void> {
  const expected = (await writesInDatabase(databaseUrl)).map(writeKey).toSorted();
  expect(expected.length).toBeGreaterThan(0);
  for (const lab of [room.trainer, room.watcher]) {
    await expect
      .poll(async () => (await drawnWrites(lab)).toSorted(), { timeout: RESUME_TIMEOUT_MS })
      .toEqual(expected);
  }
}
