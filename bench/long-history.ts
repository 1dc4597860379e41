import type { Browser, Page } from '@playwright/test';
import pg from 'pg';
import { kindWhere } from '../lib/labs/traits';
import { openBrowser } from './chromium';
import type { BenchSizes } from './sizes';
import type { Figure } from './stats';

/*
 * A long history (`npm run bench -- history`): a lab with 200,000 events from 50 holders over an
 * hour, opened in Chromium at 1280×720 as a viewer opens it. Measured as that viewer sees it:
 *  - from navigation to the frame that paints the newest write's mark (the feed has delivered the
 *    whole history, and the timeline drew it), and to the room status "Live";
 *  - the longest frame at rest over the next seconds (requestAnimationFrame deltas; the count of
 *    long animation frames, over 50 ms, that Chromium reported meanwhile);
 *  - the page's JS heap after a garbage collection (CDP).
 * The load is split by the feed's own messages, seen in the page: its hello (the page is loaded and
 * its feed opened), its caught-up (the history is in the page), then the frame that draws it.
 */

const LAB = kindWhere((t) => t.fencing === 'text-compare');
const MB = 1024 * 1024;
/** A load that takes longer fails the benchmark (it could not run). */
const DRAWN_TIMEOUT_S = 180;
const GOALS = { loadMs: 2_000, frameMs: 50, heapBytes: 300 * MB } as const;

export async function benchLongHistory(
  baseUrl: string,
  databaseUrl: string,
  size: BenchSizes['history'],
): Promise<Figure[]> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  let browser: Browser | undefined;
  try {
    await fillHistory(db, size);
    // The newest write, committed now: its mark is drawn once the whole history before it is in.
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO events (lab, actor, kind, token, outcome, detail)
       VALUES ($1, 'w1', 'write_accepted', 999999999, 'accepted', '{"value":"newest"}') RETURNING id`,
      [LAB],
    );
    const newest = `write:${rows[0]?.id}`;
    browser = await openBrowser();
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.addInitScript(watchScript(newest));
    await page.goto(`${baseUrl}/labs/${LAB}`);
    const { markMs } = (await page.evaluate('window.__bench.drawn')) as { markMs: number };
    // The room status says "Live" once the live feed, opened after the download, has caught up.
    await page.waitForFunction('window.__bench.liveMs !== undefined', undefined, { timeout: DRAWN_TIMEOUT_S * 1000 });
    const load = {
      markMs,
      ...((await page.evaluate('window.__bench')) as { liveMs: number; helloMs: number; caughtUpMs: number }),
    };
    // The history download (components/lab/history-download.ts), as the browser timed it.
    const download = (await page.evaluate(`performance.getEntriesByType('resource')
      .filter((e) => e.name.includes('/history?'))
      .map((e) => ({ startMs: e.startTime, firstByteMs: e.responseStart, endMs: e.responseEnd, by: e.initiatorType }))`)) as {
      startMs: number;
      firstByteMs: number;
      endMs: number;
      by: string;
    }[];
    const rest = await framesAtRest(page, size.restMs);
    const heapBytes = await usedHeap(page);

    const events = `${size.events.toLocaleString('en')} events`;
    const quick = size.events < 200_000 ? ' (quick size: the goals are for 200,000)' : '';
    return [
      {
        name: `${events}: navigation → newest mark painted`,
        value: `${(load.markMs / 1000).toFixed(2)} s`,
        goal: '< 2 s',
        met: load.markMs < GOALS.loadMs,
        note: `${downloadNote(download)}; the live feed's hello at ${seconds(load.helloMs)}, its caught-up at ${seconds(load.caughtUpMs)}, room status "Live" at ${seconds(load.liveMs)}${quick}`,
      },
      {
        name: `${events}: longest frame at rest, ${(size.restMs / 1000).toFixed(0)} s`,
        value: `${rest.longestMs.toFixed(0)} ms`,
        goal: '≤ 50 ms',
        met: rest.longestMs <= GOALS.frameMs,
        note: `${rest.frames} frames; ${rest.longFrames} long animation frames reported`,
      },
      {
        name: `${events}: JS heap after GC`,
        value: `${(heapBytes / MB).toFixed(0)} MB`,
        goal: '< 300 MB',
        met: heapBytes < GOALS.heapBytes,
      },
    ];
  } finally {
    await browser?.close();
    await db.query('DELETE FROM events WHERE lab = $1', [LAB]);
    await db.end();
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function downloadNote(downloads: { startMs: number; firstByteMs: number; endMs: number; by: string }[]): string {
  if (!downloads.length) return 'no history download';
  return downloads
    .map(
      (d) =>
        `history download (${d.by}) asked at ${seconds(d.startMs)}, first byte ${seconds(d.firstByteMs)}, read by ${seconds(d.endMs)}`,
    )
    .join('; ');
}

/** `holders` workers taking turns at grants, renewals and writes, spread evenly over the span, ending now. */
async function fillHistory(db: pg.Client, size: BenchSizes['history']): Promise<void> {
  const perHolder = Math.ceil(size.events / size.holders);
  await db.query('DELETE FROM events WHERE lab = $1', [LAB]);
  await db.query(
    `INSERT INTO events (lab, actor, kind, token, outcome, detail)
     SELECT $1, 'w' || lane,
            (ARRAY['lease_acquired','lease_renewed','write_sent','write_accepted','write_rejected'])[1 + (n % 5)],
            lane * 100000 + n / 5, CASE WHEN n % 5 = 3 THEN 'accepted' END,
            jsonb_build_object('value', 'w' || lane || '-' || n)
       FROM generate_series(1, $2) lane, generate_series(1, $3) n
      ORDER BY n, lane`,
    [LAB, size.holders, perHolder],
  );
  // The trigger stamped them all "now": spread their database times over the span, the newest a second ago.
  await db.query(
    `ALTER TABLE events DISABLE TRIGGER events_refuse_update;
     WITH bounds AS (SELECT min(id) AS first, max(id) - min(id) + 1 AS n FROM events WHERE lab = '${LAB}')
     UPDATE events SET at = clock_timestamp() - interval '1 second'
                           - (bounds.n - (id - bounds.first)) * (interval '${size.spanMinutes} minutes' / bounds.n)
       FROM bounds WHERE lab = '${LAB}';
     ALTER TABLE events ENABLE TRIGGER events_refuse_update;`,
  );
  // As autovacuum would have done while the history grew: without it the planner, which last saw
  // the lab nearly empty, sorts the whole rest of the history for every page (about 40 ms a page).
  await db.query('ANALYZE events');
}

/**
 * Run in the page before its own scripts: notes (performance.now(), from navigation) when the room
 * status first says "Live", and the frame after the newest mark is in the document. Page code is
 * text: tsx would wrap a function in helpers the page does not have.
 */
function watchScript(mark: string): string {
  const selector = JSON.stringify(`[data-mark="${mark}"]`);
  return `(() => {
    const bench = (window.__bench = { longFrames: 0 });
    let resolveDrawn;
    bench.drawn = new Promise((resolve, reject) => {
      resolveDrawn = resolve;
      setTimeout(() => reject(new Error('the newest mark ' + ${selector} + ' was not drawn within ${DRAWN_TIMEOUT_S} s')), ${DRAWN_TIMEOUT_S * 1000});
    });
    // When the feed's caught-up arrives: the history is in the page; the rest is storing and drawing it.
    const Native = window.EventSource;
    window.EventSource = class extends Native {
      constructor(...args) {
        super(...args);
        this.addEventListener('hello', () => { bench.helloMs ??= performance.now(); });
        this.addEventListener('caught-up', () => { bench.caughtUpMs ??= performance.now(); });
      }
    };
    let markSeen = false;
    const check = () => {
      if (bench.liveMs === undefined) {
        const status = document.querySelector('[data-testid="room-status"] [role="status"]');
        if (status && status.textContent === 'Live') bench.liveMs = performance.now();
      }
      if (markSeen && bench.liveMs !== undefined) observer.disconnect();
      if (!markSeen && document.querySelector(${selector})) {
        markSeen = true;
        requestAnimationFrame(() => {
          resolveDrawn({ markMs: performance.now() });
        });
      }
    };
    const observer = new MutationObserver(check);
    observer.observe(document, { childList: true, subtree: true, characterData: true });
    try {
      new PerformanceObserver((list) => { bench.longFrames += list.getEntries().length; })
        .observe({ type: 'long-animation-frame' });
    } catch {}
  })()`;
}

/** Frames over `ms` with the page left alone: the longest gap between two frames, and the long frames reported. */
async function framesAtRest(
  page: Page,
  ms: number,
): Promise<{ longestMs: number; frames: number; longFrames: number }> {
  return (await page.evaluate(`new Promise((resolve) => {
    const longBefore = window.__bench.longFrames;
    let frames = 0;
    let longestMs = 0;
    let last = performance.now();
    const start = last;
    const tick = (now) => {
      frames++;
      longestMs = Math.max(longestMs, now - last);
      last = now;
      if (now - start < ${ms}) requestAnimationFrame(tick);
      else resolve({ longestMs, frames, longFrames: window.__bench.longFrames - longBefore });
    };
    requestAnimationFrame(tick);
  })`)) as { longestMs: number; frames: number; longFrames: number };
}

/** The page's JS heap in use after a full garbage collection, as Chromium's DevTools reports it. */
async function usedHeap(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  await cdp.detach();
  return usedSize;
}
