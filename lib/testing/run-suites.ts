import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { createInterface } from 'node:readline';
import { splitSpecs } from './e2e-halves';
import { busyCpuSeconds, type SuiteRun, suiteReport } from './suite-report';

/*
 * `npm test`: every suite. First the quick checks, side by side: lint and the type check; then the
 * production build (made once here, because the suites after it start the app at the same time, and
 * two builds into one .next would break each other: lib/testing/build-if-stale.ts). If all pass, the
 * long suites, one after another on a machine of fewer than 4 CPUs, or in two lanes side by side on a
 * bigger one (SERIAL below), each lane stopping at its first failure. Every line a suite prints is prefixed with its name. At the end: how long each suite took, when
 * it started, and how busy the CPUs were meanwhile, so that a slow suite is seen and CI's time explained
 * (lib/testing/suite-report.ts). Exits 1 if any suite failed.
 */

type Suite = { name: string; args: string[]; env?: Record<string, string> };

const QUICK: Suite[] = [
  { name: 'lint', args: ['run', 'lint'] },
  { name: 'typecheck', args: ['run', 'typecheck'] },
];
/** After the type check, which reads the route types a build writes (.next/types) and fails while they are rewritten. */
const BUILD: Suite = {
  name: 'build',
  args: ['exec', '--', 'node', '--import', 'tsx', 'lib/testing/build-if-stale.ts'],
};

/*
 * FENCING_LAB_E2E_HALVES (1 unless set; 2: two halves side by side): the e2e spec files in halves, each half a Playwright run with an app (`npm start`), a port and an
 * embedded PostgreSQL of its own (E2E_PORT, E2E_DATA_DIR: playwright.config.ts), so that a spec in one
 * half never meets the other half's shared labs. Files are split by their measured time
 * (lib/testing/e2e-halves.ts), so that the halves end together. The ports are E2E_PORT (3210 unless set) and 10 above it per half
 * (feed-heals.spec.ts also takes the port after each).
 */
const E2E_HALVES = Math.max(1, Number(process.env.FENCING_LAB_E2E_HALVES || 1) || 1);
const E2E_BASE_PORT = Number(process.env.E2E_PORT ?? 3210);

function e2eHalves(): Suite[] {
  const specs = readdirSync('e2e')
    .filter((f) => f.endsWith('.spec.ts'))
    .map((f) => `e2e/${f}`);
  const parts = splitSpecs(specs, E2E_HALVES);
  return Array.from({ length: E2E_HALVES }, (_, i) => ({
    name: E2E_HALVES === 1 ? 'e2e' : `e2e ${i + 1}/${E2E_HALVES}`,
    args: E2E_HALVES === 1 ? ['run', 'test:e2e'] : ['run', 'test:e2e', '--', ...(parts[i] ?? [])],
    env: {
      E2E_PORT: String(E2E_BASE_PORT + 10 * i),
      E2E_DATA_DIR: i === 0 ? '.data/e2e' : `.data/e2e-${i + 1}`,
      E2E_OUTPUT_DIR: `test-results/e2e-${i + 1}`,
    },
  }));
}

/**
 * Lanes that run side by side; the suites of a lane run one after another: node, the planted bugs,
 * bench and soak in one, e2e (the longest) in the other, so that bench and soak measure beside e2e
 * only. Each suite starts its own PostgreSQL, on its own port, so the lanes share no labs.
 */
const SIDE_BY_SIDE: Suite[][] = [
  [
    // One database lane (and the pure files beside it): a database lane uses about 0.7 of a CPU.
    { name: 'node', args: ['run', 'test:node'], env: { FENCING_LAB_TEST_LANES: '1' } },
    { name: 'mutations', args: ['run', 'test:mutations', '--', '--no-baseline'] },
    { name: 'bench', args: ['run', 'test:bench'] },
    { name: 'soak', args: ['run', 'test:soak'] },
  ],
  ...e2eHalves().map((half) => [half]),
];
/**
 * Serial (node, mutations, e2e, bench, soak, one after another) on a machine of fewer than 4 CPUs, or
 * with FENCING_LAB_TEST_SERIAL=1; side by side with 4 or more, or FENCING_LAB_TEST_SERIAL=0. On this
 * 2-CPU machine the two lanes kept both CPUs 99–100% busy (load 11–16), e2e ran 1.7 times slower per
 * test (43 s against 25 s), a first accessibility scan timed out, and the whole was projected at about
 * 57 minutes against 60–70 serial: the suites are CPU-bound together (Chromium alone takes 0.5–0.8 of
 * a CPU painting the timeline), so lanes pay only where there are CPUs to spare. E2e halves
 * (FENCING_LAB_E2E_HALVES=2) run side by side even here: one e2e run left about 45% of the two CPUs
 * idle, but two halves failed two tests in one of two CI runs, so one run is the default (docs/testing.md).
 */
const SERIAL =
  process.env.FENCING_LAB_TEST_SERIAL === undefined || process.env.FENCING_LAB_TEST_SERIAL === ''
    ? availableParallelism() < 4
    : process.env.FENCING_LAB_TEST_SERIAL === '1';
/**
 * Alone on the machine, the node suite runs two database lanes (and its pure files beside them): on this
 * 2-CPU machine 724 tests passed in 498 s in a clean-clone CI run, against 1,089 s with one lane the day
 * before (docs/testing.md).
 */
const NODE_ALONE: Suite = { ...(SIDE_BY_SIDE[0]?.[0] as Suite), env: { FENCING_LAB_TEST_LANES: '2' } };
/** A lane's steps, one after another; a step of several suites runs them side by side. */
type Step = Suite | readonly Suite[];
const LANES: Step[][] = SERIAL
  ? [
      [
        NODE_ALONE,
        ...(SIDE_BY_SIDE[0] ?? []).slice(1, 2),
        SIDE_BY_SIDE.slice(1).flat(),
        // Side by side: the soak mostly waits on its chaos's real time, and the benchmarks run at their
        // small size only to prove they still run (their goals are for a quiet machine): 148 s together
        // against 120 + 126 one after the other, both passing (2026-12-06).
        (SIDE_BY_SIDE[0] ?? []).slice(2),
      ],
    ]
  : SIDE_BY_SIDE;

const running = new Set<ReturnType<typeof spawn>>();
const t0 = performance.now();
const since = () => (performance.now() - t0) / 1000;
const busyAtStart = busyCpuSeconds();

function prefixLines(stream: NodeJS.ReadableStream, prefix: string, out: NodeJS.WriteStream): void {
  createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
    out.write(`${prefix}${line}\n`);
  });
}

function run(suite: Suite, width: number): Promise<SuiteRun> {
  const startedAt = since();
  const busyBefore = busyCpuSeconds();
  // A process group of its own, so that a signal reaches everything the suite started (npm does not pass it on).
  const child = spawn('npm', suite.args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...suite.env },
    detached: true,
  });
  running.add(child);
  const prefix = `[${suite.name}]`.padEnd(width + 3);
  prefixLines(child.stdout, prefix, process.stdout);
  prefixLines(child.stderr, prefix, process.stderr);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      running.delete(child);
      resolve({
        name: suite.name,
        startedAt,
        seconds: since() - startedAt,
        busyCpuSeconds: busyCpuSeconds() - busyBefore,
        code: code ?? (signal ? 1 : 0),
      });
    });
  });
}

async function runLane(lane: readonly Step[], width: number, ran: SuiteRun[]): Promise<boolean> {
  for (const step of lane) {
    const results = await Promise.all((Array.isArray(step) ? step : [step]).map((suite) => run(suite, width)));
    ran.push(...results);
    if (results.some((result) => result.code !== 0)) return false;
  }
  return true;
}

async function main(): Promise<number> {
  const all = [...QUICK, BUILD, ...LANES.flat(2)];
  const width = Math.max(...all.map((s) => s.name.length));
  const ran: SuiteRun[] = [];
  const quick = await Promise.all(QUICK.map((suite) => run(suite, width)));
  ran.push(...quick);
  if (quick.every((r) => r.code === 0) && (await runLane([BUILD], width, ran))) {
    await Promise.all(LANES.map((lane) => runLane(lane, width, ran)));
  }
  const total = { seconds: since(), busyCpuSeconds: busyCpuSeconds() - busyAtStart, cpuCount: cpus().length };
  console.log(`\n${suiteReport(ran, total).join('\n')}`);
  return ran.every((r) => r.code === 0) && ran.length === all.length ? 0 : 1;
}

/*
 * Ctrl-C or a SIGTERM: SIGINT to each suite's whole group, as a terminal's Ctrl-C would send it. Playwright
 * then stops its `npm start` (with SIGTERM it died and left the app and its PostgreSQL running, and the next
 * e2e run found its port taken).
 */
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const child of running) {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGINT');
      } catch {
        // its group has just ended
      }
    }
  });
}

process.exitCode = await main();
