import pg from 'pg';
import { WORKER_LAB_IDS } from '../lib/labs/traits';
import { openBrowser } from './chromium';
import { checkViewer, openViewer, type RoomViewer } from './room-viewer';
import { findServerPid, residentBytes } from './server-memory';
import type { BenchSizes } from './sizes';
import type { Figure } from './stats';

/*
 * A training room: the trainer starts 20 workers over three shared labs (8 + 8 + 4) by clicking
 * "Start worker" in Chromium (with a 0.5 s lease), then 50 trainees watch the three labs' live feeds for `minutes`
 * (bench/sizes.ts: fewer of each at the quick size).
 * Every 10 s (more often in a run shorter than 20 s): the Next server's resident memory, the events delivered, the
 * events in Postgres.
 * At the end every viewer's ids are checked against Postgres: none lost, none twice.
 */

export const ROOM_TRAINER_KEY = 'bench-room-trainer-key';
/** The first three shared labs: the fenced one and two that break. */
const LAB_IDS = WORKER_LAB_IDS.slice(0, 3);
/**
 * The shortest lease the controls allow: the holder renews every third of it, so the room is busier
 * than a real session (the write interval is not in the controls; it stays at its default).
 */
const LEASE_TTL_S = 0.5;
const SAMPLE_EVERY_MS = 10_000;
const CATCH_UP_TIMEOUT_MS = 30_000;
const MIB = 1024 * 1024;

type Sample = { atS: number; rssBytes: number; delivered: number; inDatabase: number };

export async function benchRoom(options: {
  baseUrl: string;
  databaseUrl: string;
  dataDir: string;
  size: BenchSizes['room'];
}): Promise<{ figures: Figure[]; lostOrDoubled: boolean; failed: boolean }> {
  const { baseUrl, databaseUrl, dataDir } = options;
  const { viewers: viewerCount, minutes } = options.size;
  const labs = LAB_IDS.map((id, i) => ({ id, workers: options.size.workers[i] ?? 1 }));
  const sampleEveryMs = Math.min(SAMPLE_EVERY_MS, (minutes * 60_000) / 2);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const viewers: RoomViewer[] = [];
  try {
    await startWorkers(baseUrl, labs);
    const serverPid = findServerPid(dataDir, Number(new URL(baseUrl).port));
    for (let i = 0; i < viewerCount; i++) viewers.push(openViewer(baseUrl, LAB_IDS[i % LAB_IDS.length] as string));
    console.log(`room: ${viewerCount} viewers on ${LAB_IDS.join(', ')}; server pid ${serverPid}`);

    const labIds: string[] = [...LAB_IDS];
    const countInDatabase = async () =>
      Number(
        (await db.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE lab = ANY($1)', [labIds])).rows[0]?.n,
      );
    const delivered = () => viewers.reduce((sum, v) => sum + v.ids.length, 0);
    const samples: Sample[] = [];
    const started = Date.now();
    const sample = async () => {
      const s = {
        atS: Math.round((Date.now() - started) / 1000),
        rssBytes: residentBytes(serverPid),
        delivered: delivered(),
        inDatabase: await countInDatabase(),
      };
      samples.push(s);
      console.log(
        `  ${String(s.atS).padStart(4)} s  RSS ${(s.rssBytes / MIB).toFixed(1).padStart(6)} MB  delivered ${s.delivered}  in Postgres ${s.inDatabase}`,
      );
    };
    await sample();
    while (Date.now() - started < minutes * 60_000) {
      await new Promise((resolve) => setTimeout(resolve, sampleEveryMs));
      await sample();
    }

    // Every viewer should hold its lab's newest event shortly after the end.
    const newest = new Map<string, number>();
    for (const lab of labIds) {
      const { rows } = await db.query<{ id: string | null }>('SELECT max(id) AS id FROM events WHERE lab = $1', [lab]);
      newest.set(lab, Number(rows[0]?.id ?? 0));
    }
    const caughtUp = (v: RoomViewer) => (v.ids.at(-1) ?? 0) >= (newest.get(v.lab) ?? 0);
    const deadline = Date.now() + CATCH_UP_TIMEOUT_MS;
    while (!viewers.every(caughtUp) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    const behind = viewers.filter((v) => !caughtUp(v)).length;
    await Promise.all(viewers.map((v) => v.stop()));

    const checks = [];
    for (const viewer of viewers) checks.push(await checkViewer(db, viewer, newest.get(viewer.lab) ?? 0));
    const lost = checks.reduce((sum, c) => sum + c.lost, 0);
    const duplicates = checks.reduce((sum, c) => sum + c.duplicates, 0);
    const outOfOrder = checks.reduce((sum, c) => sum + c.outOfOrder, 0);
    const reconnects = viewers.reduce((sum, v) => sum + v.reconnects, 0);
    printMemoryTable(samples);
    const workers = labs.reduce((sum, lab) => sum + lab.workers, 0);
    const figures = figuresOf({ samples, lost, duplicates, outOfOrder, behind, reconnects, workers });
    // The run fails on any event lost, doubled or out of order, a viewer left behind, or memory that grew.
    const lostOrDoubled = lost + duplicates + outOfOrder + behind > 0;
    return { figures, lostOrDoubled, failed: lostOrDoubled || figures.some((figure) => figure.met === false) };
  } finally {
    await Promise.all(viewers.map((v) => v.stop()));
    await db.end();
  }
}

/** Unlocks over HTTP with the trainer key (keeping its cookie), then clicks "Start worker" in each lab. */
async function startWorkers(baseUrl: string, labs: { id: string; workers: number }[]): Promise<void> {
  const unlock = await fetch(`${baseUrl}/unlock?key=${encodeURIComponent(ROOM_TRAINER_KEY)}`, { redirect: 'manual' });
  const cookie = unlock.headers.get('set-cookie')?.split(';')[0];
  if (!cookie?.includes('=')) throw new Error(`the trainer key was refused (HTTP ${unlock.status})`);
  const [name, value] = [cookie.slice(0, cookie.indexOf('=')), cookie.slice(cookie.indexOf('=') + 1)];
  const browser = await openBrowser();
  try {
    const context = await browser.newContext();
    await context.addCookies([{ name, value, url: baseUrl }]);
    const page = await context.newPage();
    for (const lab of labs) {
      await page.goto(`${baseUrl}/labs/${lab.id}`);
      await page.getByTestId('room-status').getByText(/^Live/).waitFor({ timeout: 60_000 });
      await page.getByLabel('Lease TTL (s)').fill(String(LEASE_TTL_S));
      const start = page.getByRole('button', { name: /Start worker/ });
      const workers = page.locator('input[type="radio"][name="worker"]');
      for (let n = 1; n <= lab.workers; n++) {
        await start.click({ timeout: 30_000 });
        await workers.nth(n - 1).waitFor({ timeout: 30_000 });
      }
      console.log(`room: ${lab.workers} workers started in ${lab.id}`);
    }
  } finally {
    // The trainer's browser goes: the workers run in the server, and 50 viewers are the load measured.
    await browser.close();
  }
}

function printMemoryTable(samples: Sample[]): void {
  console.log('\nNext server memory over the run');
  console.log('     t    RSS (MB)   events in Postgres   events delivered');
  for (const s of samples) {
    console.log(
      `  ${`${s.atS} s`.padStart(6)}  ${(s.rssBytes / MIB).toFixed(1).padStart(8)}  ${String(s.inDatabase).padStart(19)}  ${String(s.delivered).padStart(17)}`,
    );
  }
}

function figuresOf(run: {
  samples: Sample[];
  lost: number;
  duplicates: number;
  outOfOrder: number;
  behind: number;
  reconnects: number;
  workers: number;
}): Figure[] {
  const { samples } = run;
  const first = samples[0] as Sample;
  const last = samples.at(-1) as Sample;
  // Memory settles during the first minute (JIT, caches, the first history reads): growth counts
  // from the start of the second minute, or from half-way through a run shorter than two minutes.
  const fromS = last.atS >= 120 ? 60 : Math.round(last.atS / 2);
  const base = samples.find((s) => s.atS >= fromS) ?? first;
  const growth = (last.rssBytes - base.rssBytes) / base.rssBytes;
  const seconds = Math.max(1, last.atS - first.atS);
  const eventsPerS = (last.inDatabase - first.inDatabase) / seconds;
  const deliveredPerS = (last.delivered - first.delivered) / seconds;
  return [
    {
      name: `server RSS, ${base.atS} s → ${last.atS} s`,
      value: `${(base.rssBytes / MIB).toFixed(0)} → ${(last.rssBytes / MIB).toFixed(0)} MB`,
      goal: '≤ +10%',
      met: growth <= 0.1,
      note: `${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)}%, peak ${(Math.max(...samples.map((s) => s.rssBytes)) / MIB).toFixed(0)} MB`,
    },
    {
      name: 'events committed',
      value: `${eventsPerS.toFixed(1)} /s`,
      goal: '—',
      met: undefined,
      note: `${last.inDatabase} in ${seconds} s, ${run.workers} workers`,
    },
    { name: 'events delivered to viewers', value: `${deliveredPerS.toFixed(0)} /s`, goal: '—', met: undefined },
    {
      name: 'events lost / received twice',
      value: `${run.lost} / ${run.duplicates}`,
      goal: '0 / 0',
      met: run.lost === 0 && run.duplicates === 0,
      note: `${run.outOfOrder} out of order, ${run.behind} viewers behind at the end, ${run.reconnects} reconnects`,
    },
  ];
}
