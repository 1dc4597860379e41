import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { createPrivateLab } from '../db/labs';
import { kindWhere } from '../lib/labs/traits';
import { ownerHashOf } from '../lib/server/access';
import { submitGuard } from '../lib/server/guard-commands';
import { INITIAL_ROW_VALUE } from '../lib/supervisor/lab-reset';
import type { AppProcess } from '../lib/testing/app-process';
import { asAlone, GUARD_CLASSES, type GuardClass } from '../lib/testing/guard-classes';
import { benchEventLatency } from './browser';
import type { BenchSizes } from './sizes';
import { type Figure, percentile } from './stats';

/*
 * Issue 24: a room presses Submit. `trainees` sessions each open a your-guard lab and submit within
 * `spreadSeconds` (a third right, a third missing the check, a third subtly wrong: lib/testing/guard-classes.ts)
 * through the app's own submit (lib/server/guard-commands.ts, each from an address of its own), against
 * `servers` app servers (`npm start`, the first with its embedded PostgreSQL, the others on it), which
 * run the attacks from the job queue. Times are the database's, Submit (the attempt's row) to verdict.
 * Each verdict is compared with its statement's solo run; a browser watches a shared lab meanwhile
 * (commit → paint), and each server's processes are sampled for CPU and memory.
 */

export type ClassroomSize = BenchSizes['classroom'];

/** The lab a trainee writes a guard in: asked by its trait, as the product asks. */
const YOUR_GUARD = kindWhere((traits) => traits.fencing === 'trainee-guard');

type Sample = { cpuSeconds: number; rssMb: number };

/** CPU seconds and resident memory of a process group (a Next server and the workers it started; PostgreSQL). */
async function groupSample(pgid: number): Promise<Sample> {
  let ticks = 0;
  let rssPages = 0;
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) !== pgid) continue;
    // Its own time and its reaped children's (the workers that already ended).
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    rssPages += Number(fields[21]);
  }
  return { cpuSeconds: ticks / 100, rssMb: (rssPages * 4096) / 1e6 };
}

export async function benchClassroom(apps: AppProcess[], size: ClassroomSize): Promise<Figure[]> {
  const [first] = apps;
  if (!first) throw new Error('no app server');
  const db = new pg.Client({ connectionString: first.databaseUrl });
  await db.connect();
  const groups = [
    ...(await Promise.all(apps.map(async (app, i) => ({ name: `app server ${i + 1}`, pgid: await app.nextPid() })))),
    { name: 'PostgreSQL', pgid: await first.postmasterPid() },
  ];
  const before = await Promise.all(groups.map((g) => groupSample(g.pgid)));
  const peakRss = before.map((s) => s.rssMb);
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const now = await Promise.all(groups.map((g) => groupSample(g.pgid)));
      for (const [i, sample] of now.entries()) peakRss[i] = Math.max(peakRss[i] ?? 0, sample.rssMb);
      await sleep(1_000);
    }
  })();

  try {
    const trainees = await Promise.all(
      Array.from({ length: size.trainees }, async (_, i) => {
        const secret = randomBytes(32).toString('hex');
        const address = `10.24.${Math.floor(i / 250)}.${i % 250}`;
        const lab = await createPrivateLab({
          kind: YOUR_GUARD,
          ownerHash: ownerHashOf(secret),
          openedFrom: address,
          initialValue: INITIAL_ROW_VALUE,
          opensPerAddress: 1,
          opensWindowMs: 1,
        });
        const guard = GUARD_CLASSES[i % GUARD_CLASSES.length] as GuardClass;
        return { i, secret, address, lab, guard, at: Math.random() * size.spreadSeconds * 1000 };
      }),
    );
    console.log(
      `classroom: ${size.trainees} trainees submit within ${size.spreadSeconds} s to ${apps.length} app server${apps.length === 1 ? '' : 's'}…`,
    );
    const watching = benchEventLatency(first.baseUrl, first.databaseUrl, { samples: size.paintSamples });
    const attempts = await Promise.all(
      trainees.map(async (t) => {
        await sleep(t.at);
        const answer = await submitGuard(
          { lab: t.lab.id, name: `Trainee ${t.i + 1}`, statement: t.guard.statement },
          { ownerSecret: t.secret },
          t.address,
        );
        if (!answer.ok) throw new Error(`trainee ${t.i + 1}: ${answer.error.message}`);
        return { ...t, attempt: answer.data.attemptId, firstWords: answer.data.headline };
      }),
    );
    const ids = attempts.map((a) => a.attempt);
    type Row = { id: string; outcome: string; verdict: string; run_by: string | null; seconds: number | null };
    let rows: Row[] = [];
    const deadline = Date.now() + size.boundSeconds * 1000;
    for (;;) {
      ({ rows } = await db.query<Row>(
        `SELECT id, outcome, verdict, run_by, extract(epoch FROM finished_at - created_at)::float8 AS seconds
           FROM guard_attempts WHERE id = ANY($1)`,
        [ids],
      ));
      if (rows.every((row) => row.outcome !== 'queued') || Date.now() > deadline) break;
      await sleep(500);
    }
    const paint = await watching;
    sampling = false;
    await sampler;
    const after = await Promise.all(groups.map((g) => groupSample(g.pgid)));

    const byId = new Map(rows.map((row) => [Number(row.id), row]));
    const seconds = rows.flatMap((row) => (row.seconds === null ? [] : [row.seconds]));
    const pending = rows.filter((row) => row.outcome === 'queued').length;
    const unlike = attempts.filter((a) => !asAlone(a.guard, byId.get(a.attempt)));
    for (const a of unlike.slice(0, 5)) {
      const got = byId.get(a.attempt);
      console.log(`classroom: trainee ${a.i + 1} (${a.guard.name}) got ${got?.outcome}: ${got?.verdict}`);
    }
    for (const [i, app] of apps.entries()) {
      const said = app
        .output()
        .split('\n')
        .filter((line) => line.includes('[jobs]'));
      for (const line of said.slice(0, 8)) console.log(`classroom: app server ${i + 1}: ${line}`);
    }
    const perServer = new Map<string, number>();
    for (const row of rows) if (row.run_by) perServer.set(row.run_by, (perServer.get(row.run_by) ?? 0) + 1);
    console.log(`classroom: the first answers read like "${attempts.at(-1)?.firstWords}"`);
    const s = (v: number) => `${v.toFixed(1)} s`;
    const goal = apps.length === 1 ? 30 : 45;
    const p95 = percentile(seconds, 95);
    return [
      { name: 'Submit → verdict p50', value: s(percentile(seconds, 50)), goal: '-', met: undefined },
      {
        name: 'Submit → verdict p95',
        value: s(p95),
        goal: `≤ ${goal} s (${apps.length === 1 ? '30 trainees, 1 server' : '60 trainees, 2 servers'})`,
        met: p95 <= goal,
      },
      { name: 'Submit → verdict max', value: s(Math.max(...seconds)), goal: '-', met: undefined },
      {
        name: 'verdicts as their solo runs',
        value: `${attempts.length - unlike.length}/${attempts.length}`,
        goal: 'all',
        met: unlike.length === 0 && pending === 0,
        ...(pending ? { note: `${pending} without a verdict after ${size.boundSeconds} s` } : {}),
      },
      {
        name: 'jobs per server',
        value: [...perServer.values()].join(' / '),
        goal: '-',
        met: undefined,
        note: `${perServer.size} servers ran attacks`,
      },
      ...paint.map((f) => ({ ...f, name: `while it runs: ${f.name}` })),
      ...groups.map((g, i) => ({
        name: `${g.name}: CPU, peak memory`,
        value: `${((after[i]?.cpuSeconds ?? 0) - (before[i]?.cpuSeconds ?? 0)).toFixed(0)} s, ${Math.round(peakRss[i] ?? 0)} MB`,
        goal: '-',
        met: undefined,
        ...(i < apps.length ? { note: 'its process group: Next and the workers it started' } : {}),
      })),
    ];
  } finally {
    sampling = false;
    await sampler;
    await db.end();
  }
}
