import { spawn, spawnSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs as parseCommandLine } from 'node:util';
import { z } from 'zod';
import { MUTANTS, type Mutant } from './mutations';

/*
 * `npm run test:mutations [-- --no-baseline] [name…]`: plants each known bug of lib/testing/mutations.ts, one
 * at a time in each of two lanes, each lane with a scratch copy of the working tree of its own (never in the
 * tree itself), and runs the node
 * tests that should catch it there, each file group on a fresh embedded PostgreSQL (the mutants
 * change SQL functions), until one fails. Prints which were caught and by which test; exits 1 if any
 * survived, 2 on bad usage or a pattern that no longer matches exactly once. `--no-baseline`: skip
 * checking that the same tests pass unmutated first (`npm test` does, since test:node just ran them).
 * `--tests=db/core-properties`: try every mutant against these test files instead of its own list
 * (to see what one suite catches alone).
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Planted bugs tried at once, each in its own scratch copy. */
const MUTANT_LANES = 2;

const argsSchema = z.strictObject({
  baseline: z.boolean(),
  tests: z.array(z.string().regex(/^[\w./-]+$/, 'a test filter is a path fragment')).optional(),
  names: z.array(z.enum(MUTANTS.map((m) => m.name) as [string, ...string[]])),
});

/** The command line, read as the product's command lines read theirs (node:util parseArgs, then zod). */
function parseArgs(argv: string[]) {
  let read: ReturnType<typeof readCommandLine>;
  try {
    read = readCommandLine(argv);
  } catch (error) {
    const message = (error as Error).message;
    const unknown = message.match(/Unknown option '([^']+)'/)?.[1];
    return { error: unknown ? `unknown option ${unknown}` : (message.split('\n')[0] ?? message) };
  }
  if (read.values.help) return { help: true as const };
  const tests = read.values.tests;
  const parsed = argsSchema.safeParse({
    baseline: !read.values['no-baseline'],
    ...(tests === undefined ? {} : { tests: tests.split(',') }),
    names: read.positionals,
  });
  return parsed.success
    ? { args: parsed.data }
    : { error: `${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}` };
}

function readCommandLine(argv: string[]) {
  return parseCommandLine({
    args: argv,
    allowPositionals: true,
    options: {
      'no-baseline': { type: 'boolean' },
      tests: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** Every replacement must match exactly once, in the file as the tree has it and as it applies. */
function plant(text: string, mutant: Mutant, file: string): string {
  let out = text;
  for (const r of mutant.replacements.filter((x) => x.file === file)) {
    const count = out.split(r.from).length - 1;
    if (count !== 1)
      throw new Error(`${mutant.name}: ${file} has ${count} matches of ${JSON.stringify(r.from)}, not 1`);
    out = out.replace(r.from, () => r.to);
  }
  return out;
}

/** The tree's files (tracked and untracked, not ignored), copied; node_modules linked. */
async function scratchCopy(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'fencing-lab-mutants-'));
  const listed = spawnSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await cp(path.join(ROOT, file), path.join(dir, file)).catch(() => undefined); // a deleted, unstaged file
  }
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

type Run = { ok: boolean; failed: string[]; output: string };

/** One group of node tests in the scratch copy, on a fresh embedded PostgreSQL of its own. */
function runTests(dir: string, filter: string, mutant?: string): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...(mutant ? { FENCING_LAB_MUTANT: mutant } : {}) };
  delete env.DATABASE_URL; // never a mutant's migrations on a database of one's own
  delete env.FENCING_LAB_LOCAL_WORKER_PASSWORD;
  const child = spawn(
    process.execPath,
    ['--conditions=react-server', '--import', 'tsx', 'lib/testing/run-node-tests.ts', filter],
    { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      // The spec reporter marks each failed test with ✖ (and repeats them under "failing tests").
      const marked = output.split('\n').filter((l) => /^\s*✖ /.test(l) && !/failing tests:/.test(l));
      const failed = [
        ...new Set(
          marked.map((l) =>
            l
              .trim()
              .replace(/^✖ /, '')
              .replace(/ \(\d[\d.]*ms\)$/, ''),
          ),
        ),
      ];
      resolve({ ok: code === 0, failed, output });
    }),
  );
}

async function main(): Promise<number> {
  const parsed = parseArgs(process.argv.slice(2));
  const usage = `usage: npm run test:mutations [-- --no-baseline] [--tests=<filter>,…] [${MUTANTS.map((m) => m.name).join('|')}…]`;
  if ('help' in parsed) {
    console.log(usage);
    return 0;
  }
  if (!parsed.args) {
    console.error(`${parsed.error}\n${usage}`);
    return 2;
  }
  const { baseline, names, tests } = parsed.args;
  // FENCING_LAB_MUTANTS_VERBOSE=1: the whole output of the run that caught each bug (what failed, and how).
  const verbose = process.env.FENCING_LAB_MUTANTS_VERBOSE === '1';
  const selected = MUTANTS.filter((m) => !names.length || names.includes(m.name)).map((m) =>
    tests ? { ...m, tests } : m,
  );
  const files = [...new Set(selected.flatMap((m) => m.replacements.map((r) => r.file)))];
  const originals = new Map<string, string>();
  for (const file of files) originals.set(file, await readFile(path.join(ROOT, file), 'utf8'));
  try {
    for (const m of selected)
      for (const file of new Set(m.replacements.map((r) => r.file))) plant(originals.get(file) as string, m, file);
  } catch (error) {
    console.error(`a planted bug no longer matches the code: ${(error as Error).message}`);
    return 2;
  }

  const started = Date.now();
  // Two lanes, each with a scratch copy of its own, take the planted bugs in turn (the node suite's two
  // database lanes, for the same 2 CPUs): each run already has a PostgreSQL of its own.
  const lanes = Math.max(1, Math.min(MUTANT_LANES, selected.length));
  const dirs = await Promise.all(Array.from({ length: lanes }, () => scratchCopy()));
  console.log(
    `${selected.length} planted bugs, in ${lanes === 1 ? 'a scratch copy' : `${lanes} scratch copies`} at ${dirs.join(', ')}`,
  );
  try {
    if (baseline) {
      const dir = dirs[0] as string;
      for (const filter of [...new Set(selected.flatMap((m) => m.tests))]) {
        const run = await runTests(dir, filter);
        if (!run.ok) {
          console.error(`${run.output}\nthe unmutated code already fails ${filter}: fix that first`);
          return 2;
        }
      }
      console.log(`baseline: the tests pass unmutated (${Math.round((Date.now() - started) / 1000)} s)`);
    }
    const survivors: string[] = [];
    const queue = [...selected];
    const lane = async (dir: string) => {
      for (let m = queue.shift(); m; m = queue.shift()) {
        const t0 = Date.now();
        for (const file of files) await writeFile(path.join(dir, file), originals.get(file) as string);
        for (const file of new Set(m.replacements.map((r) => r.file))) {
          await writeFile(path.join(dir, file), plant(originals.get(file) as string, m, file));
        }
        let caught: { filter: string; run: Run } | undefined;
        for (const filter of m.tests) {
          const run = await runTests(dir, filter, m.name);
          if (!run.ok) {
            caught = { filter, run };
            break;
          }
        }
        const seconds = Math.round((Date.now() - t0) / 1000);
        if (caught) {
          // The spec reporter names a failed test before the suites around it: the first is the test.
          const by = caught.run.failed[0] ?? 'the run failed';
          console.log(`caught    ${m.name} (${seconds} s): ${m.what}\n          by ${caught.filter}: ${by}`);
          if (verbose) console.log(caught.run.output);
        } else {
          survivors.push(m.name);
          console.log(`SURVIVED  ${m.name} (${seconds} s): ${m.what}\n          ${m.tests.join(', ')} all passed`);
        }
      }
    };
    // Both lanes end before their copies go: a lane that throws leaves no run of the other in a removed copy.
    const ended = await Promise.allSettled(dirs.map(lane));
    for (const lane of ended) if (lane.status === 'rejected') throw lane.reason;
    const total = Math.round((Date.now() - started) / 1000);
    console.log(
      survivors.length
        ? `${survivors.length} of ${selected.length} planted bugs survived: ${survivors.join(', ')} (${total} s)`
        : `every planted bug caught: ${selected.length} of ${selected.length} (${total} s)`,
    );
    return survivors.length ? 1 : 0;
  } finally {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
