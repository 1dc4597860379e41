import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/*
 * `npm test`: every suite. First the quick checks, side by side: lint, the type check, and the
 * production build (made once here, because the suites after it start the app at the same time, and
 * two builds into one .next would break each other: lib/testing/build-if-stale.ts). If all pass, the
 * long suites run in lanes side by side, each lane its suites in order, stopping at its first failure;
 * the lanes share nothing (each suite starts its own PostgreSQL in its own directory, on its own port,
 * so its own labs). Most of their time is waiting on real timers, leases and pauses, not the CPU.
 * Every line a suite prints is prefixed with its name. At the end: how long each suite took, and when
 * it started, so that a slow suite is seen (and the CI's time explained). Exits 1 if any suite failed.
 */

type Suite = { name: string; args: string[] };

const QUICK: Suite[] = [
  { name: 'lint', args: ['run', 'lint'] },
  { name: 'typecheck', args: ['run', 'typecheck'] },
  { name: 'build', args: ['exec', '--', 'node', '--import', 'tsx', 'lib/testing/build-if-stale.ts'] },
];

/** Lanes that run side by side; the suites of a lane run one after another. */
const LANES: Suite[][] = [
  [
    { name: 'node', args: ['run', 'test:node'] },
    { name: 'mutations', args: ['run', 'test:mutations', '--', '--no-baseline'] },
  ],
  [{ name: 'e2e', args: ['run', 'test:e2e'] }],
  [
    { name: 'bench', args: ['run', 'test:bench'] },
    { name: 'soak', args: ['run', 'test:soak'] },
  ],
];

type Ran = { name: string; startedAt: number; seconds: number; code: number };

const running = new Set<ReturnType<typeof spawn>>();
const t0 = performance.now();
const since = () => (performance.now() - t0) / 1000;

function prefixLines(stream: NodeJS.ReadableStream, prefix: string, out: NodeJS.WriteStream): void {
  createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
    out.write(`${prefix}${line}\n`);
  });
}

function run(suite: Suite, width: number): Promise<Ran> {
  const startedAt = since();
  const child = spawn('npm', suite.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  const prefix = `[${suite.name}]`.padEnd(width + 3);
  prefixLines(child.stdout, prefix, process.stdout);
  prefixLines(child.stderr, prefix, process.stderr);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      running.delete(child);
      resolve({ name: suite.name, startedAt, seconds: since() - startedAt, code: code ?? (signal ? 1 : 0) });
    });
  });
}

async function runLane(lane: readonly Suite[], width: number, ran: Ran[]): Promise<boolean> {
  for (const suite of lane) {
    const result = await run(suite, width);
    ran.push(result);
    if (result.code !== 0) return false;
  }
  return true;
}

function report(ran: readonly Ran[], totalSeconds: number): void {
  const width = Math.max(...ran.map((r) => r.name.length), 'total'.length);
  console.log('\nnpm test: time per suite (started at, took)');
  for (const r of ran) {
    console.log(
      `  ${r.name.padEnd(width)}  at ${r.startedAt.toFixed(0).padStart(5)} s  ${r.seconds.toFixed(0).padStart(5)} s  ${r.code === 0 ? 'passed' : 'FAILED'}`,
    );
  }
  console.log(`  ${'total'.padEnd(width)}  ${''.padStart(10)}  ${totalSeconds.toFixed(0).padStart(5)} s`);
}

async function main(): Promise<number> {
  const all = [...QUICK, ...LANES.flat()];
  const width = Math.max(...all.map((s) => s.name.length));
  const ran: Ran[] = [];
  const quick = await Promise.all(QUICK.map((suite) => run(suite, width)));
  ran.push(...quick);
  if (quick.every((r) => r.code === 0)) await Promise.all(LANES.map((lane) => runLane(lane, width, ran)));
  report(ran, since());
  return ran.every((r) => r.code === 0) && ran.length === all.length ? 0 : 1;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const child of running) child.kill(signal);
  });
}

process.exitCode = await main();
