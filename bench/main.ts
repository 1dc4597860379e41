import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '../db/migrate';
import { closePool } from '../db/pool';
import { ensureLocalWorkerPassword } from '../db/roles';
import { PROJECT_ROOT } from '../lib/launcher/paths';
import { UsageError } from '../lib/model/core/errors';
import { startWorkersFromBundle } from '../lib/os/worker-bundle';
import { getSupervisor } from '../lib/supervisor/supervisor';
import { type AppProcess, startAppProcess } from '../lib/testing/app-process';
import { startTestCluster } from '../lib/testing/test-cluster';
import { testWorkerLineUrl } from '../lib/testing/worker-line';
import { startApp } from './app-server';
import { BENCH_USAGE, type BenchArgs, parseBenchArgs } from './args';
import { benchEventLatency, benchTimelineFps } from './browser';
import { benchBundle } from './bundle';
import { benchBusyLabs } from './busy-labs';
import { benchChaos } from './chaos';
import { benchClassroom } from './classroom';
import { benchExplore } from './explore';
import { benchFaults } from './faults';
import { benchJobQueue } from './job-queue';
import { benchLongHistory } from './long-history';
import { benchNarration } from './narration';
import { benchRoom, ROOM_TRAINER_KEY } from './room';
import { type Figure, printFigures } from './stats';
import { benchTakeover } from './takeover';
import { benchThroughput } from './throughput';

/*
 * `npm run bench [-- <names>] [--quick]`: the figures with their goals (bench/args.ts has the usage).
 * Each runs on a throwaway database (and app) of its own, never on the developer's data. With
 * --quick every benchmark runs at its small size (bench/sizes.ts): `npm test` runs that, and it
 * exits non-zero if a benchmark could not run or a room lost or doubled an event, never on a figure.
 * The room and faults benchmarks take minutes at full size: asked for by name (or with --quick).
 * classroom starts app servers of its own (--servers) on one database.
 */

const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

/** The throwaway cluster's postmaster: the first line of its postmaster.pid. */
const postmasterPidOf = (dataDir: string): number =>
  Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(BENCH_USAGE);
    return EXIT.ok;
  }
  let args: BenchArgs;
  try {
    args = parseBenchArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${BENCH_USAGE}\n${error.message}`);
    return EXIT.usage;
  }
  const { selected, sizes, quick } = args;
  const report: Array<[string, Figure[]]> = [];
  const failures: string[] = [];
  /** A benchmark that throws is reported and fails the run; the others still run. */
  const run = async (name: string, title: string, bench: () => Promise<Figure[]>) => {
    const started = Date.now();
    try {
      report.push([title, await bench()]);
    } catch (error) {
      console.error(`${name}: could not run:`, error);
      failures.push(name);
    }
    console.log(`${name}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  };

  const onDatabase = ['throughput', 'takeover', 'chaos', 'busy-labs', 'job-queue', 'explore'] as const;
  if (onDatabase.some((name) => selected.has(name))) {
    const cluster = await startTestCluster('bench');
    try {
      await migrate(cluster.url);
      process.env.DATABASE_URL = cluster.url;
      process.env.FENCING_LAB_LOCAL_WORKER_PASSWORD = await ensureLocalWorkerPassword(cluster.url);
      if (selected.has('throughput')) {
        console.log('throughput: fenced vs plain UPDATE…');
        await run('throughput', 'Fenced-write cost: fenced UPDATE throughput ÷ plain UPDATE throughput', () =>
          benchThroughput(cluster.url, sizes.throughput),
        );
      }
      if (selected.has('takeover')) {
        console.log('takeover: lease expiry → next grant…');
        await run('takeover', 'Takeover latency (database clock)', () => benchTakeover(sizes.takeover));
      }
      if (selected.has('chaos')) {
        console.log(`chaos: aimed chaos in the fenced lab, 5 workers, ${sizes.chaos.seconds} s…`);
        await run('chaos', 'Aimed chaos: stale write attempts (fenced lab, 5 workers)', () => benchChaos(sizes.chaos));
      }
      if (selected.has('busy-labs')) {
        console.log(`busy labs: ${sizes.busyLabs.labs} labs acquiring, renewing and writing at once…`);
        await run(
          'busy-labs',
          'Busy labs: lease operations (acquire, renew, write, release, each with its event)',
          () => benchBusyLabs(cluster.url, sizes.busyLabs),
        );
      }
      if (selected.has('explore')) {
        console.log('explore: every interleaving of the fenced lab, each write on the database, rolled back…');
        await run('explore', "The explorer: the fenced lab's whole space, on the real database", () =>
          benchExplore(sizes.explore, postmasterPidOf(cluster.dataDir)),
        );
      }
      if (selected.has('job-queue')) {
        const { jobs, jobMs } = sizes.jobQueue;
        console.log(`job-queue: graphile-worker, ${jobs} jobs of ${jobMs} ms, then a kill -9…`);
        const workerUrl = await testWorkerLineUrl({ who: 'bench' });
        await run(
          'job-queue',
          'Issue 24: the job queue, graphile-worker (2 consumer processes × 2 jobs at a time)',
          () => benchJobQueue(cluster.url, workerUrl, sizes.jobQueue),
        );
      }
    } finally {
      await getSupervisor().shutdown();
      await closePool();
      await cluster.dispose();
    }
  }

  const inApp = ['latency', 'fps', 'history', 'bundle', 'room', 'faults'] as const;
  if (inApp.some((name) => selected.has(name))) {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'fencing-lab-bench-app-'));
    await chmod(dataDir, 0o755);
    // It builds the app first when the sources changed since the last build (the bundle figure reads that build).
    console.log('starting the app (npm start) for the browser benchmarks…');
    // Viewers from one address: past the per-address cap of a real room's laptops.
    const app = await startApp(dataDir, {
      FENCING_LAB_TRAINER_KEY: ROOM_TRAINER_KEY,
      FENCING_LAB_MAX_FEEDS_PER_ADDRESS: String(sizes.room.viewers * 2),
    });
    const stopOnSignal = () => void app.stop().finally(() => process.exit(EXIT.interrupted));
    process.once('SIGINT', stopOnSignal);
    process.once('SIGTERM', stopOnSignal);
    try {
      if (selected.has('bundle')) {
        console.log('bundle: first-load JavaScript of the lab page…');
        await run('bundle', 'First-load JavaScript (the production build)', () => benchBundle());
      }
      if (selected.has('latency')) {
        console.log('latency: event commit → mark painted in Chromium…');
        await run('latency', 'Event → browser latency (real Chromium)', () =>
          benchEventLatency(app.baseUrl, app.databaseUrl, sizes.latency),
        );
      }
      if (selected.has('fps')) {
        const { lanes, eventsPerLane } = sizes.fps;
        console.log(`fps: ${lanes} lanes, ${(lanes * eventsPerLane).toLocaleString('en')} events…`);
        await run('fps', 'Timeline rendering', () => benchTimelineFps(app.baseUrl, app.databaseUrl, sizes.fps));
      }
      if (selected.has('history')) {
        console.log(`history: a lab of ${sizes.history.events.toLocaleString('en')} events opened in Chromium…`);
        await run('history', 'A long history (real Chromium, 1280×720)', () =>
          benchLongHistory(app.baseUrl, app.databaseUrl, sizes.history),
        );
      }
      if (selected.has('room')) {
        const { viewers, workers, minutes } = sizes.room;
        const title = `A training room: ${viewers} viewers, ${workers.reduce((a, b) => a + b, 0)} workers, ${minutes} min`;
        console.log(`room: ${title}…`);
        await run('room', title, async () => {
          const room = await benchRoom({ ...app, dataDir, size: sizes.room });
          // A lost or doubled event always fails the run; a figure only at full size.
          if (room.lostOrDoubled || (!quick && room.failed)) failures.push('room');
          return room.figures;
        });
      }
      if (selected.has('faults')) {
        const { crashes } = sizes.faults;
        console.log(`faults: the database killed ${crashes} times under an open page…`);
        await run('faults', `Recovery after a database crash (kill -9), ${crashes} crashes`, () =>
          benchFaults({ ...app, dataDir, trainerKey: ROOM_TRAINER_KEY, crashes }),
        );
      }
    } finally {
      await app.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }

  if (selected.has('narration')) {
    const { historiesPerLab } = sizes.narration;
    console.log(`narration: ${historiesPerLab} generated histories per lab, every sentence held to its events…`);
    await run(
      'narration',
      `Narration oracle: ${historiesPerLab.toLocaleString('en')} generated histories per lab`,
      () => benchNarration(sizes.narration),
    );
  }

  if (selected.has('classroom')) {
    const { trainees, servers } = sizes.classroom;
    const title = `A classroom submits: ${trainees} trainees, ${servers} app server${servers === 1 ? '' : 's'} on one database`;
    console.log(`classroom: starting ${servers} app server${servers === 1 ? '' : 's'}…`);
    const dirs: string[] = [];
    const apps: AppProcess[] = [];
    try {
      for (let i = 0; i < servers; i++) {
        const dataDir = await mkdtemp(path.join(os.tmpdir(), 'fencing-lab-bench-classroom-'));
        await chmod(dataDir, 0o755);
        dirs.push(dataDir);
        const first = apps[0];
        apps.push(await startAppProcess({ dataDir, ...(first ? { databaseUrl: first.databaseUrl } : {}) }));
      }
      // This process submits as the trainees' browsers would, through the app's own code, on that database.
      process.env.DATABASE_URL = apps[0]?.databaseUrl;
      await run('classroom', title, () => benchClassroom(apps, sizes.classroom));
    } finally {
      await closePool();
      for (const app of apps.reverse()) await app.stop();
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    }
  }

  console.log(
    `\nFencing Lab benchmarks${quick ? ' (quick size: checks that each runs; the figures say little)' : ''}, ${new Date().toISOString()}, ${os.cpus().length} CPUs, Node ${process.version}`,
  );
  for (const [title, figures] of report) printFigures(title, figures);
  if (failures.length) {
    console.error(`\nfailed: ${failures.join(', ')}`);
    return EXIT.failed;
  }
  return EXIT.ok;
}

// The workers this command's supervisors start load a bundle, not the TypeScript (lib/os/worker-bundle.ts).
await startWorkersFromBundle(PROJECT_ROOT);
process.exitCode = await main(process.argv.slice(2));
