import type { Page } from '@playwright/test';
import pg from 'pg';
import { kindWhere, PAUSE_UNFENCED } from '../lib/labs/traits';
import { openBrowser } from './chromium';
import type { BenchSizes } from './sizes';
import { type Figure, percentile } from './stats';

/*
 * In real Chromium against the running app:
 *  - event → browser: from the commit of an event (the INSERT returned) to its mark painted on the
 *    timeline (the frame after it appears in the DOM);
 *  - timeline rendering: 50 lanes and 50,000 events, frames per second while panning and zooming.
 */

/** The goal (#12): at rest, panning and zooming alike. */
const FPS_GOAL = 55;

export async function benchEventLatency(
  baseUrl: string,
  databaseUrl: string,
  size: BenchSizes['latency'],
): Promise<Figure[]> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const browser = await openBrowser();
  const latencies: number[] = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(`${baseUrl}/labs/${PAUSE_UNFENCED}`);
    await page.getByTestId('room-status').getByText(/^Live/).waitFor();
    for (let i = 0; i < size.samples; i++) {
      const { rows } = await db.query<{ id: string }>(
        `INSERT INTO events (lab, actor, kind, token, outcome, detail)
         VALUES ($2, 'bench', 'write_accepted', 1, 'accepted', $1) RETURNING id`,
        [JSON.stringify({ value: `v${i}` }), PAUSE_UNFENCED],
      );
      const committedAt = Date.now();
      const paintedAt = await paintOf(page, `write:${rows[0]?.id}`);
      latencies.push(paintedAt - committedAt);
    }
  } finally {
    await browser.close();
    await db.query("DELETE FROM events WHERE lab = $1 AND actor = 'bench'", [PAUSE_UNFENCED]);
    await db.end();
  }
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  return [
    {
      name: 'event → painted mark, p50',
      value: `${p50.toFixed(0)} ms`,
      goal: '≤ 20 ms',
      met: p50 <= 20,
      note: `${latencies.length} events`,
    },
    { name: 'event → painted mark, p99', value: `${p99.toFixed(0)} ms`, goal: '≤ 100 ms', met: p99 <= 100 },
  ];
}

/**
 * Resolves with this machine's clock at the first frame painted after the mark is in the DOM.
 * Page code is passed as text: tsx would wrap a function in helpers the page does not have.
 */
function paintOf(page: Page, mark: string): Promise<number> {
  const selector = JSON.stringify(`[data-mark="${mark}"]`);
  return page.evaluate(`new Promise((resolve, reject) => {
    setTimeout(() => reject(new Error('the mark ' + ${selector} + ' was not drawn within 5 s')), 5000);
    const done = () => requestAnimationFrame(() => resolve(Date.now()));
    if (document.querySelector(${selector})) return done();
    const observer = new MutationObserver(() => {
      if (!document.querySelector(${selector})) return;
      observer.disconnect();
      done();
    });
    observer.observe(document.body, { childList: true, subtree: true });
  })`) as Promise<number>;
}

/** Frames per second over `ms`, counted with requestAnimationFrame in the page. */
function framesPerSecond(page: Page, ms: number): Promise<number> {
  return page.evaluate(`new Promise((resolve) => {
    let frames = 0;
    const start = performance.now();
    const tick = () => {
      frames++;
      if (performance.now() - start < ${ms}) requestAnimationFrame(tick);
      else resolve((frames * 1000) / (performance.now() - start));
    };
    requestAnimationFrame(tick);
  })`) as Promise<number>;
}

export async function benchTimelineFps(
  baseUrl: string,
  databaseUrl: string,
  size: BenchSizes['fps'],
): Promise<Figure[]> {
  const { lanes, eventsPerLane, measureMs } = size;
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  // A shared lab no other figure uses: the one with a catch-up path.
  const lab = kindWhere((t) => t.fencing === 'catch-up-bypass');
  // 50 holders, each with grants, renewals and writes, over the last ten minutes.
  await db.query('DELETE FROM events WHERE lab = $1', [lab]);
  await db.query(
    `INSERT INTO events (lab, actor, kind, token, outcome, detail)
     SELECT $3::text, 'w' || lane,
            (ARRAY['lease_acquired','lease_renewed','write_sent','write_accepted','write_rejected'])[1 + (n % 5)],
            lane * 100000 + n / 5, CASE WHEN n % 5 = 3 THEN 'accepted' END,
            jsonb_build_object('value', 'w' || lane || '-' || n,
                               'expiresAt', to_char((clock_timestamp() - interval '10 minutes' + (n * interval '600 milliseconds') + interval '2 seconds') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
       FROM generate_series(1, $1) lane, generate_series(1, $2) n
      ORDER BY n, lane`,
    [lanes, eventsPerLane, lab],
  );
  // Spread their database times over the ten minutes (the trigger stamped them all "now").
  await db.query('BEGIN');
  await db.query('ALTER TABLE events DISABLE TRIGGER events_refuse_update');
  await db.query(
    `UPDATE events SET at = clock_timestamp() - interval '10 minutes' + ((id - (SELECT min(id) FROM events WHERE lab = $1)) * interval '12 milliseconds')
      WHERE lab = $1`,
    [lab],
  );
  await db.query('ALTER TABLE events ENABLE TRIGGER events_refuse_update');
  await db.query('COMMIT');
  const browser = await openBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    const loadStarted = Date.now();
    await page.goto(`${baseUrl}/labs/${lab}`);
    await page
      .getByRole('group', { name: `Timeline of ${lanes} holders and the database` })
      .waitFor({ timeout: 60_000 });
    const loadMs = Date.now() - loadStarted;
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    const idleFps = await framesPerSecond(page, measureMs);
    // While panning (the arrow keys, every 50 ms), then while zooming (− and +, every 50 ms).
    const fpsWhile = async (keys: string[]) => {
      const measuring = framesPerSecond(page, measureMs);
      const deadline = Date.now() + measureMs - 200;
      for (let i = 0; Date.now() < deadline; i++) {
        await page.keyboard.press(keys[i % keys.length] as string);
        await page.waitForTimeout(50);
      }
      return measuring;
    };
    const panningFps = await fpsWhile(['ArrowLeft', 'ArrowLeft', 'ArrowLeft', 'ArrowRight']);
    const zoomingFps = await fpsWhile(['-', '+']);
    const name = `${lanes} lanes × ${eventsPerLane} events`;
    return [
      {
        name: `${name}, at rest (following now)`,
        value: `${idleFps.toFixed(0)} fps`,
        goal: `≥ ${FPS_GOAL} fps`,
        met: idleFps >= FPS_GOAL,
        note: `history loaded and drawn in ${(loadMs / 1000).toFixed(1)} s`,
      },
      {
        name: `${name}, panning`,
        value: `${panningFps.toFixed(0)} fps`,
        goal: `≥ ${FPS_GOAL} fps`,
        met: panningFps >= FPS_GOAL,
      },
      {
        name: `${name}, zooming`,
        value: `${zoomingFps.toFixed(0)} fps`,
        goal: `≥ ${FPS_GOAL} fps`,
        met: zoomingFps >= FPS_GOAL,
      },
    ];
  } finally {
    await browser.close();
    await db.query('DELETE FROM events WHERE lab = $1', [lab]);
    await db.end();
  }
}
