import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { migrate } from '../../db/migrate';
import { newClient } from '../../db/pool';
import { ensureLocalWorkerPassword } from '../../db/roles';
import { PROJECT_ROOT } from '../launcher/paths';
import { startWorkersFromBundle } from '../os/worker-bundle';
import { buildIfStale } from './production-build';
import { startTestCluster, type TestCluster } from './test-cluster';
import { splitTests } from './test-groups';

/*
 * `npm run test:node [-- <file-substring>…]`: every *.test.ts under lib/, db/, app/ and components/, run
 * by Node's own test runner, in groups that run side by side:
 *
 * - pure: the files that need neither a database nor a process (the rule: lib/testing/test-groups.ts),
 *   run at once, one at a time (many are property tests that use a whole CPU, and the database lanes'
 *   timing tests fail when starved), without DATABASE_URL and without waiting for a PostgreSQL;
 * - database lanes (FENCING_LAB_TEST_LANES, default 2): each lane starts its own embedded PostgreSQL
 *   (its own data directory and port, so its own labs, the shared labs included) and runs the other
 *   files one at a time, taking the next file from one queue when its last one ends. One file at a
 *   time per database, because files drive the same shared labs' real worker processes.
 *
 * FENCING_LAB_TEST_PART (`all` unless set): `pure` runs the pure files alone, `database` the database
 * lanes alone (by hand: `npm test` runs both together; the pure files beside e2e slowed it more than
 * they saved, docs/testing.md).
 *
 * With DATABASE_URL set, the database files run in one lane on that database. Each file's output is
 * printed whole when it ends; at the end, the time of each group and the slowest files. The time each
 * file took in a whole run is kept in node_modules/.cache (never committed), so that the next run starts
 * the slowest files first; a clean clone starts them in path order.
 */

const TEST_ROOTS = ['lib', 'db', 'app', 'components'];
const TIMES_FILE = path.resolve('node_modules/.cache/fencing-lab/node-test-seconds.json');
const NODE_ARGS = ['--conditions=react-server', '--import', 'tsx', '--test', '--test-reporter=spec'];
/**
 * A hang is a failure: a database file still running after 10 minutes (the slowest takes under 3) is
 * ended with its process group and reported; the pure files, run together, get 15.
 */
const FILE_DEADLINE_MS = 10 * 60_000;
const PARTS = ['all', 'pure', 'database'] as const;
type Part = (typeof PARTS)[number];
/** Which files this run takes: FENCING_LAB_TEST_PART, read once (a bad value is refused at start). */
function partOf(value: string | undefined): Part | undefined {
  if (value === undefined || value === '') return 'all';
  return PARTS.find((part) => part === value);
}
const PURE_DEADLINE_MS = 15 * 60_000;

async function findTests(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const found = await Promise.all(
    entries.map(async (entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return findTests(full);
      return entry.name.endsWith('.test.ts') ? [full] : [];
    }),
  );
  return found.flat().sort();
}

type Counts = { tests: number; pass: number; fail: number };
type FileRun = { file: string; group: string; seconds: number; code: number; counts: Counts; failures?: string };
type GroupRun = { name: string; seconds: number; files: number; failed: number; note?: string };

const running = new Set<ReturnType<typeof spawn>>();
let stopping = false;

/** The spec reporter's closing lines (`ℹ tests 12`, `ℹ pass 12`, `ℹ fail 0`), summed over a run. */
function countsOf(output: string): Counts {
  const count = (word: string) => Number(output.match(new RegExp(`^ℹ ${word} (\\d+)$`, 'm'))?.[1] ?? 0);
  return { tests: count('tests'), pass: count('pass'), fail: count('fail') };
}

/**
 * What a failed run said of its failures (node's "✖ failing tests:" section, else its last lines),
 * repeated at the end of the report: a CI log cut to its tail still says which test failed and why.
 */
function failuresOf(output: string): string | undefined {
  const at = output.lastIndexOf('✖ failing tests:');
  const lines = (at >= 0 ? output.slice(at) : output).trimEnd().split('\n');
  return lines.slice(at >= 0 ? 0 : -40, at >= 0 ? 60 : undefined).join('\n') || undefined;
}

/** Runs `node --test` on some files, its output gathered and printed whole at the end under a header. */
function runNodeTest(
  files: string[],
  extraArgs: string[],
  env: NodeJS.ProcessEnv,
  header: string,
  deadlineMs: number,
): Promise<{ seconds: number; code: number; output: string }> {
  const started = performance.now();
  // A group of its own: a run past its deadline is ended with all it started.
  const child = spawn(process.execPath, [...NODE_ARGS, ...extraArgs, ...files], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
    detached: true,
  });
  running.add(child);
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  let overdue = false;
  const deadline = setTimeout(() => {
    overdue = true;
    output += `\n✖ failing tests:\n\n✖ ${files.length === 1 ? files[0] : `${files.length} files`} did not end within ${deadlineMs / 1000} s: its process group was ended\n`;
    endGroup(child, 'SIGTERM');
    setTimeout(() => endGroup(child, 'SIGKILL'), 5_000).unref();
  }, deadlineMs);
  return new Promise((resolve) => {
    let done = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      running.delete(child);
      const seconds = (performance.now() - started) / 1000;
      const result = overdue ? 1 : (code ?? (signal ? 1 : 0));
      process.stdout.write(
        `\n── ${header} · ${seconds.toFixed(1)} s · ${result === 0 ? 'passed' : 'FAILED'}\n${output.trimEnd()}\n`,
      );
      resolve({ seconds, code: result, output });
    };
    child.on('close', finish);
    // A process it started that outlives it and holds its output open must not hold the run up: it is
    // ended with its group (whose id cannot be reused while one of its processes lives).
    child.on('exit', (code, signal) =>
      setTimeout(() => {
        if (done) return;
        endGroup(child, 'SIGKILL');
        finish(code, signal);
      }, 5_000).unref(),
    );
  });
}

/** A signal to a test run's whole process group (it is gone already: nothing to do). */
function endGroup(child: ReturnType<typeof spawn>, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group has ended.
  }
}

/**
 * The worker lines the file's tests issued (db/worker-lines.ts), taken back once it ends: each file
 * starts with none, however many files its lane runs (a lane that ran most files alone, its other one
 * held up, once reached the room's 40 and refused the next file's).
 */
async function dropWorkerLines(url: string): Promise<void> {
  const client = newClient(url);
  await client.connect();
  try {
    await client.query('SELECT fl_drop_worker_line(role_name) FROM worker_lines');
  } finally {
    await client.end();
  }
}

/** The environment without a database: a pure file that reaches for one fails instead of sharing a lane's. */
function withoutDatabase(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  delete env.FENCING_LAB_LOCAL_WORKER_PASSWORD;
  return env;
}

async function pureGroup(files: string[], fileRuns: FileRun[]): Promise<GroupRun> {
  if (files.length === 0) return { name: 'pure', seconds: 0, files: 0, failed: 0 };
  const run = await runNodeTest(
    files,
    ['--test-concurrency=1'],
    withoutDatabase(),
    `pure: ${files.length} files`,
    PURE_DEADLINE_MS,
  );
  const counts = countsOf(run.output);
  fileRuns.push({
    file: `(${files.length} pure files)`,
    group: 'pure',
    seconds: run.seconds,
    code: run.code,
    counts,
    failures: failuresOf(run.output),
  });
  return { name: 'pure', seconds: run.seconds, files: files.length, failed: run.code === 0 ? 0 : 1 };
}

/** A database of the lane's own: DATABASE_URL if given (one lane), else a fresh embedded cluster. */
async function laneDatabase(lane: number): Promise<{ url: string; cluster?: TestCluster }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL };
  const cluster = await startTestCluster(`tests-${lane}`);
  return { url: cluster.url, cluster };
}

/**
 * The files that start the app (lib/testing/app-process.ts), set by main. They take turns across the
 * lanes: each one's `npm start` runs an embedded PostgreSQL that prefers port 54329, so in two lanes
 * at once one could take the port while the other's server was down for its restart test, and the
 * other's app then met the wrong cluster ("password authentication failed", CI on 5790d40).
 */
const startsTheApp = new Set<string>();
let appTurns: Promise<unknown> = Promise.resolve();

/** Runs `work` after every earlier app-starting file has ended, whatever became of them. */
function inTheAppsTurn<T>(work: () => Promise<T>): Promise<T> {
  const mine = appTurns.then(work, work);
  appTurns = mine.catch(() => undefined);
  return mine;
}

async function databaseLane(lane: number, queue: string[], fileRuns: FileRun[]): Promise<GroupRun> {
  const started = performance.now();
  const name = `database lane ${lane}`;
  let db: { url: string; cluster?: TestCluster } | undefined;
  let files = 0;
  let failed = 0;
  try {
    db = await laneDatabase(lane);
    const setup = (performance.now() - started) / 1000;
    await migrate(db.url);
    // The server's workers connect as the local worker role: it needs its password before any worker starts.
    const env = {
      ...process.env,
      DATABASE_URL: db.url,
      FENCING_LAB_LOCAL_WORKER_PASSWORD: await ensureLocalWorkerPassword(db.url),
    };
    const where = db.cluster ? `an embedded PostgreSQL on port ${db.cluster.port}` : 'DATABASE_URL';
    console.log(
      `${name} uses ${where} (ready in ${((performance.now() - started) / 1000).toFixed(1)} s, cluster ${setup.toFixed(1)} s)`,
    );
    for (let file = queue.shift(); file !== undefined && !stopping; file = queue.shift()) {
      const runFile = () => runNodeTest([file], [], env, `${name}: ${file}`, FILE_DEADLINE_MS);
      const run = startsTheApp.has(file) ? await inTheAppsTurn(runFile) : await runFile();
      // Only on a cluster of the run's own: a DATABASE_URL may be a room's, whose lines are people's.
      if (db.cluster) await dropWorkerLines(db.url);
      files += 1;
      if (run.code !== 0) failed += 1;
      fileRuns.push({
        file,
        group: name,
        seconds: run.seconds,
        code: run.code,
        counts: countsOf(run.output),
        failures: failuresOf(run.output),
      });
    }
  } catch (error) {
    console.error(`${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    failed += 1;
  } finally {
    await db?.cluster?.dispose();
  }
  return { name, seconds: (performance.now() - started) / 1000, files, failed };
}

async function knownSeconds(): Promise<Record<string, number>> {
  try {
    return JSON.parse(await readFile(TIMES_FILE, 'utf8'));
  } catch {
    return {};
  }
}

async function keepSeconds(fileRuns: readonly FileRun[], previous: Record<string, number>): Promise<void> {
  const times = { ...previous };
  for (const run of fileRuns) if (run.group !== 'pure') times[run.file] = Math.round(run.seconds * 10) / 10;
  await mkdir(path.dirname(TIMES_FILE), { recursive: true });
  await writeFile(TIMES_FILE, `${JSON.stringify(times, null, 1)}\n`).catch(() => undefined);
}

function report(groups: readonly GroupRun[], fileRuns: readonly FileRun[], totalSeconds: number, left: number): void {
  const sum = fileRuns.reduce(
    (acc, r) => ({ tests: acc.tests + r.counts.tests, pass: acc.pass + r.counts.pass, fail: acc.fail + r.counts.fail }),
    { tests: 0, pass: 0, fail: 0 },
  );
  console.log('\ntest:node: time per group');
  const width = Math.max(...groups.map((g) => g.name.length), 'total'.length);
  for (const g of groups) {
    console.log(
      `  ${g.name.padEnd(width)}  ${g.seconds.toFixed(0).padStart(5)} s  ${String(g.files).padStart(3)} files  ${g.failed === 0 ? 'passed' : 'FAILED'}`,
    );
  }
  console.log(`  ${'total'.padEnd(width)}  ${totalSeconds.toFixed(0).padStart(5)} s`);
  const slowest = fileRuns
    .filter((r) => r.group !== 'pure')
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, 8);
  if (slowest.length) {
    console.log('  slowest files:');
    for (const r of slowest) console.log(`    ${r.seconds.toFixed(0).padStart(5)} s  ${r.file}`);
  }
  console.log(`  tests ${sum.tests}, passed ${sum.pass}, failed ${sum.fail}`);
  const failedFiles = fileRuns.filter((r) => r.code !== 0);
  for (const r of failedFiles)
    if (r.failures) console.log(`\n  ${r.file} failed:\n${r.failures.replace(/^/gm, '    ')}`);
  if (failedFiles.length) console.log(`  FAILED: ${failedFiles.map((r) => r.file).join(', ')}`);
  if (left) console.log(`  ${left} files not run (a lane stopped)`);
}

async function main(): Promise<number> {
  const started = performance.now();
  const files = (await Promise.all(TEST_ROOTS.map(findTests))).flat();
  const filter = process.argv.slice(2);
  if (filter.includes('--help') || filter.includes('-h')) {
    console.log(
      'usage: npm run test:node [-- <path fragment>…]   every *.test.ts whose path contains one of the fragments (all without)\n  FENCING_LAB_TEST_LANES (2), FENCING_LAB_TEST_PART (all | pure | database), DATABASE_URL: docs/testing.md',
    );
    return 0;
  }
  const selected = filter.length ? files.filter((file) => filter.some((f) => file.includes(f))) : files;
  const part = partOf(process.env.FENCING_LAB_TEST_PART);
  if (!part) {
    console.error(`FENCING_LAB_TEST_PART must be one of ${PARTS.join(', ')}: got ${process.env.FENCING_LAB_TEST_PART}`);
    return 2;
  }
  const split = await splitTests(selected);
  const pure = part === 'database' ? [] : split.pure;
  const database = part === 'pure' ? [] : split.database;

  // Files that start the app (lib/testing/app-process.ts) in two lanes at once would each build a stale
  // app into the same .next, and one fails: it is built once here first, as npm test does before its suites.
  for (const file of database) if (/app-process/.test(await readFile(file, 'utf8'))) startsTheApp.add(file);
  if (startsTheApp.size > 0 && (await buildIfStale((line) => console.log(`test:node: ${line}`))) !== 0) {
    console.error('test:node: the production build failed, and some files start the app: nothing was run');
    return 1;
  }

  const previous = await knownSeconds();
  // Slowest first (when a past run on this checkout says which), so that no lane is left with a long file at the end.
  const queue = [...database].sort((a, b) => (previous[b] ?? 0) - (previous[a] ?? 0));
  const wanted = Number(process.env.FENCING_LAB_TEST_LANES ?? 2);
  const lanes = process.env.DATABASE_URL
    ? 1
    : Math.max(1, Math.min(Number.isInteger(wanted) ? wanted : 2, queue.length));
  console.log(
    `test:node: ${pure.length} files without a database (one at a time, beside the lanes), ${database.length} with one (${lanes} lane${lanes === 1 ? '' : 's'}, one file at a time each)${part === 'all' ? '' : `; FENCING_LAB_TEST_PART=${part}`}`,
  );

  const fileRuns: FileRun[] = [];
  const groups = await Promise.all([
    ...(part === 'database' ? [] : [pureGroup(pure, fileRuns)]),
    ...(queue.length ? Array.from({ length: lanes }, (_, i) => databaseLane(i + 1, queue, fileRuns)) : []),
  ]);
  // Only a whole run says how long each file takes (a filtered run may be a planted bug failing early).
  if (!filter.length && part !== 'pure') await keepSeconds(fileRuns, previous);
  report(groups, fileRuns, (performance.now() - started) / 1000, queue.length);
  return groups.every((g) => g.failed === 0) && queue.length === 0 && !stopping ? 0 : 1;
}

// Each file runs in a group of its own (its deadline ends all of it): the terminal's signals reach
// only this runner, which passes them on; a second one kills what is left.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    const again = stopping;
    stopping = true;
    for (const child of running) endGroup(child, again ? 'SIGKILL' : 'SIGTERM');
  });
}

// The workers the tests' supervisors start load a bundle, not the TypeScript (lib/os/worker-bundle.ts).
await startWorkersFromBundle(PROJECT_ROOT);
process.exitCode = await main();
