import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { falseClaims, rowAfter } from '../lib/model/walkthrough/narration-oracle';
import { appDatabaseUrl } from './app-database';
import { expect, test } from './fixtures';
import { readLabState } from './lab-state';
import { stepCountOf, stepNumberOf, stepOf } from './steps';

/*
 * Issue 34's goal, in Chromium: A stopped for real (SIGSTOP, the whole process) past its lease after its
 * first write, so that it takes the lease again with a new token before the story's freeze or hold;
 * then every step's words on the page are held to the database's events by the narration oracle, and
 * the step where A's lease runs out names the lease that really ran out, not A's first.
 */

const STALLED = [
  { lab: 'fenced', ttlMs: 3_000 },
  { lab: 'delayed-packet-unfenced', ttlMs: 2_000 },
] as const;

/** Stops the app's worker A of `lab` (its process id from the database, never from a page) for `ms`. */
async function stallA(lab: string, ms: number): Promise<void> {
  const db = new pg.Client({ connectionString: await appDatabaseUrl() });
  await db.connect();
  try {
    const { rows } = await db.query<{ pid: number }>(
      "SELECT (server->>'workerPid')::int AS pid FROM remote_workers WHERE lab = $1 AND name = 'A' AND server IS NOT NULL ORDER BY started_at DESC LIMIT 1",
      [lab],
    );
    const pid = rows[0]?.pid;
    expect(pid, "A's process id").toBeGreaterThan(0);
    process.kill(pid as number, 'SIGSTOP');
    try {
      await sleep(ms);
    } finally {
      process.kill(pid as number, 'SIGCONT');
    }
  } finally {
    await db.end();
  }
}

for (const { lab: kind, ttlMs } of STALLED) {
  test(`${kind}: with A stalled past its lease before the story's turn, every step says only what the database recorded`, async ({
    lab,
    baseURL,
  }) => {
    test.setTimeout(150_000);
    const page = lab(kind);
    // Whatever the lab was doing, Start over runs the first step, the reset, for real.
    await page.gotoWalkthrough();
    await expect(page.startOver.or(page.runSteps).first()).toBeVisible({ timeout: 30_000 });
    if (await page.runSteps.isVisible()) await page.runSteps.click();
    else await page.startOver.click();
    await page.expectStep('setup', 'The lab has been reset');
    await page.nextStep();
    await page.expectStep('a-writes', /^A/);
    const firstGrant = (await readLabState(baseURL as string, kind)).events.find(
      (e) => e.actor === 'A' && e.kind === 'lease_acquired',
    );
    await stallA(kind, ttlMs + 1_000);
    // A finds its lease gone and takes it again: a new grant, a new token.
    await expect
      .poll(
        async () =>
          (await readLabState(baseURL as string, kind)).events.filter(
            (e) => e.actor === 'A' && e.kind === 'lease_acquired',
          ).length,
        { timeout: 20_000 },
      )
      .toBeGreaterThan(1);
    for (let step = stepNumberOf(kind, 'a-writes') + 1; step <= stepCountOf(kind); step++) {
      await page.nextStep();
      await expect(page.stepCounter).toHaveText(stepOf(kind, step), { timeout: 30_000 });
      await expect(page.narration).not.toHaveText(/^(Waiting for|Not run yet)/, { timeout: 30_000 });
      const text = (await page.narration.textContent()) ?? '';
      const state = await readLabState(baseURL as string, kind);
      // lab-state reads protected_rows; a broken lab's row is in unguarded_rows: the events have it.
      const row = state.row ?? rowAfter(state.events);
      expect(falseClaims(text, state.events, row), `step ${step}: ${text}`).toEqual([]);
      if (text.includes("A's lease with token") || text.includes('its lease ran out at')) {
        expect(text, "the lease that ran out is not A's first").not.toContain(`token ${firstGrant?.token} ran out`);
      }
    }
  });
}
