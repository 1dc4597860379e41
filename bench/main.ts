import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '../db/migrate';
import { closePool } from '../db/pool';
import { ensureWorkerPassword } from '../db/roles';
import { getSupervisor } from '../lib/supervisor/supervisor';
import { startTestCluster } from '../lib/testing/test-cluster';
import { startApp } from './app-server';
import { benchEventLatency, benchTimelineFps } from './browser';
import { BUSY_LABS, benchBusyLabs } from './busy-labs';
import { benchFaults, FAULTS_DEFAULT_CRASHES } from './faults';
import { benchRoom, ROOM_TRAINER_KEY } from './room';
import { type Figure, printFigures } from './stats';
import { benchTakeover } from './takeover';
import { benchThroughput } from './throughput';

/*
 * `npm run bench [-- throughput|takeover|busy-labs|latency|fps]`: the figures with their goals. Each
 * runs on a throwaway database (and app) of its own, never on the developer's data.
 * `npm run bench -- room [--minutes 10]`: a training room (50 viewers, 20 workers) for that long;
 * asked for by name only, since it takes minutes. It exits non-zero if a viewer missed an event.
 * `npm run bench -- faults [--crashes 5]`: the embedded database killed N times under an open page;
 * time from the database accepting connections again to the first new mark painted. By name only.
 */

const ALL = ['throughput', 'takeover', 'busy-labs', 'latency', 'fps', 'room', 'faults'] as const;
const BY_DEFAULT: readonly Bench[] = ['throughput', 'takeover', 'busy-labs', 'latency', 'fps'];
type Bench = (typeof ALL)[number];
const ROOM_DEFAULT_MINUTES = 10;
/** CI runs the busy-labs figure small: it checks that it runs, not how fast. */
const BUSY_LABS_SECONDS = process.env.CI ? 2 : 10;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const minutesAt = args.indexOf('--minutes');
  const minutes = minutesAt >= 0 ? Number(args[minutesAt + 1]) : ROOM_DEFAULT_MINUTES;
  const crashesAt = args.indexOf('--crashes');
  const crashes = crashesAt >= 0 ? Number(args[crashesAt + 1]) : FAULTS_DEFAULT_CRASHES;
  const flagIndexes = new Set([minutesAt, crashesAt].filter((at) => at >= 0).flatMap((at) => [at, at + 1]));
  const asked = args.filter((_, i) => !flagIndexes.has(i));
  const unknown = asked.filter((a) => !(ALL as readonly string[]).includes(a));
  if (unknown.length || !(minutes > 0) || !Number.isInteger(crashes) || crashes < 1) {
    console.error(
      `usage: npm run bench [-- ${ALL.join('|')} … [--minutes N] [--crashes N]]\nunknown: ${unknown.join(' ')}`,
    );
    process.exitCode = 2;
    return;
  }
  const selected = new Set<Bench>(asked.length ? (asked as Bench[]) : BY_DEFAULT);
  const report: Array<[string, Figure[]]> = [];

  if (selected.has('throughput') || selected.has('takeover') || selected.has('busy-labs')) {
    const cluster = await startTestCluster('bench');
    try {
      await migrate(cluster.url);
      process.env.DATABASE_URL = cluster.url;
      process.env.FENCING_LAB_WORKER_PASSWORD = await ensureWorkerPassword(cluster.url);
      if (selected.has('throughput')) {
        console.log('throughput: fenced vs plain UPDATE…');
        report.push([
          'Guard cost: fenced UPDATE throughput ÷ plain UPDATE throughput',
          await benchThroughput(cluster.url),
        ]);
      }
      if (selected.has('takeover')) {
        console.log('takeover: lease expiry → next grant…');
        report.push(['Takeover latency (database clock)', await benchTakeover()]);
      }
      if (selected.has('busy-labs')) {
        console.log(`busy labs: ${BUSY_LABS} labs acquiring, renewing and writing at once…`);
        report.push([
          'Busy labs: lease operations (acquire, renew, write, release, each with its event)',
          await benchBusyLabs(cluster.url, { seconds: BUSY_LABS_SECONDS }),
        ]);
      }
    } finally {
      await getSupervisor().shutdown();
      await closePool();
      await cluster.dispose();
    }
  }

  if (selected.has('latency') || selected.has('fps') || selected.has('room') || selected.has('faults')) {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'fencing-lab-bench-app-'));
    await chmod(dataDir, 0o755);
    console.log('starting the app (npm start) for the browser benchmarks…');
    // 50 viewers from one address: past the per-address cap of a real room's laptops.
    const app = await startApp(dataDir, {
      FENCING_LAB_TRAINER_KEY: ROOM_TRAINER_KEY,
      FENCING_LAB_MAX_FEEDS_PER_ADDRESS: '100',
    });
    const stopOnSignal = () => void app.stop().finally(() => process.exit(130));
    process.once('SIGINT', stopOnSignal);
    process.once('SIGTERM', stopOnSignal);
    try {
      if (selected.has('latency')) {
        console.log('latency: event commit → mark painted in Chromium…');
        report.push(['Event → browser latency (real Chromium)', await benchEventLatency(app.baseUrl, app.databaseUrl)]);
      }
      if (selected.has('fps')) {
        console.log('fps: 50 lanes, 50,000 events…');
        report.push(['Timeline rendering', await benchTimelineFps(app.baseUrl, app.databaseUrl)]);
      }
      if (selected.has('room')) {
        console.log(`room: 50 viewers and 20 workers for ${minutes} min…`);
        const room = await benchRoom({ ...app, dataDir, minutes });
        report.push([`A training room: 50 viewers, 20 workers, ${minutes} min`, room.figures]);
        if (room.failed) process.exitCode = 1;
      }
      if (selected.has('faults')) {
        console.log(`faults: the database killed ${crashes} times under an open page…`);
        report.push([
          `Recovery after a database crash (kill -9), ${crashes} crashes`,
          await benchFaults({ ...app, dataDir, trainerKey: ROOM_TRAINER_KEY, crashes }),
        ]);
      }
    } finally {
      await app.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }

  console.log(
    `\nFencing Lab benchmarks, ${new Date().toISOString()}, ${os.cpus().length} CPUs, Node ${process.version}`,
  );
  for (const [title, figures] of report) printFigures(title, figures);
}

await main();
