import { spawn } from 'node:child_process';

/*
 * `npm test`: every suite, in the order a failure is cheapest to find (lint and types first, the
 * long real-process suites last), stopping at the first that fails, as `a && b && …` did, and then
 * printing how long each suite took, so that a slow suite is seen (and the CI's time explained).
 * Lint and the type check run side by side: they share nothing and each wants one CPU.
 */

type Suite = { name: string; args: string[] };

const STAGES: Suite[][] = [
  [
    { name: 'lint', args: ['run', 'lint'] },
    { name: 'typecheck', args: ['run', 'typecheck'] },
  ],
  [{ name: 'node', args: ['run', 'test:node'] }],
  [{ name: 'mutations', args: ['run', 'test:mutations', '--', '--no-baseline'] }],
  [{ name: 'e2e', args: ['run', 'test:e2e'] }],
  [{ name: 'bench', args: ['run', 'test:bench'] }],
  [{ name: 'soak', args: ['run', 'test:soak'] }],
];

type Ran = { name: string; seconds: number; code: number };

const running = new Set<ReturnType<typeof spawn>>();

function run(suite: Suite): Promise<Ran> {
  const started = performance.now();
  const child = spawn('npm', suite.args, { stdio: 'inherit' });
  running.add(child);
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      running.delete(child);
      resolve({ name: suite.name, seconds: (performance.now() - started) / 1000, code: code ?? (signal ? 1 : 0) });
    });
  });
}

function report(ran: readonly Ran[], totalSeconds: number): void {
  const width = Math.max(...ran.map((r) => r.name.length), 'total'.length);
  console.log('\nnpm test: time per suite');
  for (const r of ran) {
    console.log(
      `  ${r.name.padEnd(width)}  ${r.seconds.toFixed(0).padStart(5)} s  ${r.code === 0 ? 'passed' : 'FAILED'}`,
    );
  }
  console.log(`  ${'total'.padEnd(width)}  ${totalSeconds.toFixed(0).padStart(5)} s`);
}

async function main(): Promise<number> {
  const started = performance.now();
  const ran: Ran[] = [];
  for (const stage of STAGES) {
    const results = await Promise.all(stage.map(run));
    ran.push(...results);
    if (results.some((r) => r.code !== 0)) break;
  }
  report(ran, (performance.now() - started) / 1000);
  return ran.every((r) => r.code === 0) && ran.length === STAGES.flat().length ? 0 : 1;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const child of running) child.kill(signal);
  });
}

process.exitCode = await main();
