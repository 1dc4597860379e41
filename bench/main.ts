import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '../db/migrate';
import { closePool } from '../db/pool';
import { getSupervisor } from '../lib/lab/supervisor';
import { startTestCluster } from '../lib/testing/test-cluster';
import { startApp } from './app-server';
import { benchEventLatency, benchTimelineFps } from './browser';
import { type Figure, printFigures } from './stats';
import { benchTakeover } from './takeover';
import { benchThroughput } from './throughput';

/*
 * `npm run bench [-- throughput|takeover|latency|fps]`: the four figures with their goals. Each
 * runs on a throwaway database (and app) of its own, never on the developer's data.
 */

const ALL = ['throughput', 'takeover', 'latency', 'fps'] as const;
type Bench = (typeof ALL)[number];

async function main(): Promise<void> {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((a) => !(ALL as readonly string[]).includes(a));
  if (unknown.length) {
    console.error(`usage: npm run bench [-- ${ALL.join('|')} …]\nunknown: ${unknown.join(' ')}`);
    process.exitCode = 2;
    return;
  }
  const selected = new Set<Bench>(asked.length ? (asked as Bench[]) : ALL);
  const report: Array<[string, Figure[]]> = [];

  if (selected.has('throughput') || selected.has('takeover')) {
    const cluster = await startTestCluster('bench');
    try {
      await migrate(cluster.url);
      process.env.DATABASE_URL = cluster.url;
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
    } finally {
      await getSupervisor().shutdown();
      await closePool();
      await cluster.dispose();
    }
  }

  if (selected.has('latency') || selected.has('fps')) {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'fencing-lab-bench-app-'));
    await chmod(dataDir, 0o755);
    console.log('starting the app (npm start) for the browser benchmarks…');
    const app = await startApp(dataDir);
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
