import { randomBytes } from 'node:crypto';
import type { Browser } from '@playwright/test';
import pg from 'pg';
import { LABS } from '../lib/model/lab/lab-kinds';
import { E2E_MAX_PRIVATE_LABS, E2E_TRAINER_KEY } from '../playwright.config';
import { appDatabaseUrl } from './app-database';
import { expect, test } from './fixtures';
import { SessionPage } from './pages/session-page';
import { type Answer, send } from './raw-http';

/*
 * Limits a script cannot walk through, and only our own hosts, sent for real over HTTP to the app
 * under test: a flood of cookie-less "open a private lab" server actions, requests naming another
 * host (DNS rebinding), and a trainer cookie replayed after "Stop driving" or after it expired.
 */

/** The id of the "open a private lab" server action, as a browser sends it (opens one lab). */
async function openLabActionId(browser: Browser): Promise<{ actionId: string; labId: string }> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const sent = page.waitForRequest((r) => r.method() === 'POST' && r.headers()['next-action'] !== undefined);
    const opened = await new SessionPage(page).openPrivateLab(LABS.fenced.title);
    return { actionId: (await sent).headers()['next-action'] as string, labId: opened.lab };
  } finally {
    await context.close();
  }
}

/** A server action's result, from its response (the line React's flight format gives it). */
function actionResult(answer: Answer): { ok: boolean; error?: { code: string; message: string } } | undefined {
  const line = answer.body.split('\n').find((l) => l.startsWith('1:{"ok":'));
  return line ? JSON.parse(line.slice(2)) : undefined;
}

async function withDatabase<T>(use: (db: pg.Client) => Promise<T>): Promise<T> {
  const db = new pg.Client({ connectionString: await appDatabaseUrl() });
  await db.connect();
  try {
    return await use(db);
  } finally {
    await db.end();
  }
}

/** Closes private labs the way the app does (closed, lease released): the next test starts with room. */
async function closeLabs(db: pg.Client, ids: string[]): Promise<void> {
  await db.query(
    `WITH closed AS (UPDATE labs SET closed_at = clock_timestamp() WHERE id = ANY($1) AND closed_at IS NULL RETURNING resource)
     DELETE FROM leases WHERE resource IN (SELECT resource FROM closed)`,
    [ids],
  );
}

test('200 concurrent cookie-less openings: never more private labs than the cap, and the trainer still starts a worker', async ({
  browser,
  baseURL,
  lab,
}) => {
  test.setTimeout(180_000);
  const base = baseURL as string;
  // Whatever earlier tests left open is closed first: the flood alone fills the server.
  const startedAt = await withDatabase(async (db) => {
    const { rows } = await db.query<{ id: string }>(
      "SELECT id FROM labs WHERE visibility = 'private' AND closed_at IS NULL",
    );
    await closeLabs(
      db,
      rows.map((row) => row.id),
    );
    return (await db.query<{ now: Date }>('SELECT clock_timestamp() AS now')).rows[0]?.now as Date;
  });
  const closeFlood = () =>
    withDatabase(async (db) => {
      const { rows } = await db.query<{ id: string }>(
        "SELECT id FROM labs WHERE visibility = 'private' AND created_at >= $1",
        [startedAt],
      );
      await closeLabs(
        db,
        rows.map((row) => row.id),
      );
    });
  try {
    const { actionId, labId: first } = await openLabActionId(browser);
    await withDatabase((db) => closeLabs(db, [first]));

    const answers = await Promise.all(
      Array.from({ length: 200 }, () =>
        send(base, {
          path: '/',
          method: 'POST',
          headers: {
            'Next-Action': actionId,
            'Content-Type': 'text/plain;charset=UTF-8',
            Accept: 'text/x-component',
            Origin: base,
            // A script may claim any address: the server counts the TCP peer, not this.
            'X-Forwarded-For': `198.51.100.${randomBytes(1)[0]}`,
          },
          body: JSON.stringify([{ kind: 'no-fencing' }]),
        }),
      ),
    );
    const results = answers.map(actionResult);
    expect(results.every((r) => r !== undefined)).toBe(true);
    const opened = results.filter((r) => r?.ok).length;
    const refused = results.filter((r) => r && !r.ok);
    expect(refused.every((r) => r?.error?.code === 'limit_reached')).toBe(true);
    expect(refused[0]?.error?.message).toMatch(`the room already has ${E2E_MAX_PRIVATE_LABS} private labs open`);

    await withDatabase(async (db) => {
      const { rows } = await db.query<{ open: number; flood: number; addresses: string[] }>(
        `SELECT (SELECT count(*)::int FROM labs WHERE visibility = 'private' AND closed_at IS NULL) AS open,
              count(*)::int AS flood, coalesce(array_agg(DISTINCT opened_from), '{}') AS addresses
         FROM labs WHERE visibility = 'private' AND created_at >= $1`,
        [startedAt],
      );
      const counted = rows[0] as { open: number; flood: number; addresses: string[] };
      expect(counted.open).toBe(E2E_MAX_PRIVATE_LABS);
      expect(counted.flood).toBe(opened + 1); // and the one the browser opened first
      expect(counted.addresses).toEqual(['127.0.0.1']);
    });

    // The room's server is full of private labs: the trainer still drives a shared lab.
    const fenced = lab('fenced');
    await fenced.gotoFreePlay();
    await fenced.reset();
    await fenced.startWorker('A', 3);
  } finally {
    await closeFlood();
  }
});

test('a request naming another host is refused (page, feed, server action); our own names are served', async ({
  browser,
  baseURL,
}) => {
  const base = baseURL as string;
  const port = new URL(base).port;
  const { actionId, labId } = await openLabActionId(browser);
  await withDatabase((db) => closeLabs(db, [labId]));
  const action = (host: string, origin: string) =>
    send(base, {
      path: '/',
      method: 'POST',
      headers: {
        Host: host,
        Origin: origin,
        'Next-Action': actionId,
        'Content-Type': 'text/plain;charset=UTF-8',
        Accept: 'text/x-component',
      },
      body: JSON.stringify([{ kind: 'fenced' }]),
    });

  // DNS rebinding: a page on evil.example whose name now points at this machine.
  const foreign = `evil.example:${port}`;
  for (const path of ['/', '/labs/fenced', '/api/health']) {
    const answer = await send(base, { path, headers: { Host: foreign } });
    expect(answer.status, path).toBe(421);
    expect(answer.body).toMatch(/answers only to its own host names/);
  }
  const feed = await send(base, { path: '/api/labs/fenced/events', headers: { Host: foreign }, firstBytesOnly: true });
  expect(feed.status).toBe(421);
  const rebound = await action(foreign, `http://${foreign}`);
  expect(rebound.status).toBe(421);
  expect(actionResult(rebound)).toBeUndefined();
  // Our own host, but sent from another site's page.
  const crossSite = await action(`127.0.0.1:${port}`, 'http://evil.example');
  expect(crossSite.status).toBe(403);

  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
    expect((await send(base, { path: '/api/health', headers: { Host: host } })).status, host).toBe(200);
  }
  expect(
    (
      await send(base, {
        path: '/api/labs/fenced/events',
        headers: { Host: `localhost:${port}` },
        firstBytesOnly: true,
      })
    ).status,
  ).toBe(200);
  const ours = await action(`127.0.0.1:${port}`, `http://127.0.0.1:${port}`);
  const result = actionResult(ours);
  expect(result?.ok).toBe(true);
  await withDatabase(async (db) => {
    const { rows } = await db.query<{ id: string }>(
      "SELECT id FROM labs WHERE visibility = 'private' AND closed_at IS NULL ORDER BY created_at DESC LIMIT 1",
    );
    await closeLabs(
      db,
      rows.map((row) => row.id),
    );
  });
});

test('"Stop driving" ends the trainer session on the server: the old cookie, replayed, drives nothing', async ({
  page,
  browser,
}) => {
  const trainerStatus = page.getByTestId('trainer-status');
  await page.goto('/');
  await expect(trainerStatus).toHaveText(/^You are the trainer/);
  const cookie = (await page.context().cookies()).find((c) => c.name === 'fl_trainer');
  expect(cookie).toBeDefined();
  expect(cookie?.value).not.toContain(E2E_TRAINER_KEY);

  await page.getByRole('button', { name: /^Stop driving/ }).click();
  await expect(trainerStatus).toHaveText(/you watch them live/);

  // Someone kept a copy of the cookie: it is refused on the server.
  const replay = await browser.newContext();
  try {
    await replay.addCookies([cookie as NonNullable<typeof cookie>]);
    const replayed = await replay.newPage();
    await replayed.goto('/labs/fenced');
    await expect(new SessionPage(replayed).driveStatus).toHaveText('Watching');
    await replayed.goto('/');
    await expect(replayed.getByTestId('trainer-status')).toHaveText(/you watch them live/);
  } finally {
    await replay.close();
  }
});

test('an expired trainer session is refused', async ({ browser }) => {
  const context = await browser.newContext();
  try {
    const trainer = await context.newPage();
    await trainer.goto(`/unlock?key=${encodeURIComponent(E2E_TRAINER_KEY)}`);
    await trainer.goto('/labs/fenced');
    const session = new SessionPage(trainer);
    await expect(session.driveStatus).toHaveText('Trainer: you drive');
    // Its 12 hours have passed, by the database's clock.
    await withDatabase((db) =>
      db.query(
        `UPDATE trainer_sessions SET expires_at = clock_timestamp() - interval '1 second'
          WHERE id_hash = (SELECT id_hash FROM trainer_sessions ORDER BY created_at DESC LIMIT 1)`,
      ),
    );
    await trainer.reload();
    await expect(session.driveStatus).toHaveText('Watching');
  } finally {
    await context.close();
  }
});
