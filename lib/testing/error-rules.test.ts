import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { allSourceFiles, sourceFiles } from './source-files';

/*
 * Two house rules about errors in product code (the harness, tests and lib/testing, is left out):
 * 1. What a user or a caller can reach throws a FencingError (a code and safe words, answered in one
 *    place: lib/server/error-answers.ts). A plain `throw new Error(` is for what only a programming
 *    mistake, a broken install or a bad setting at start can reach; the files allowed one are listed
 *    below with how many and why, and the list can only shrink.
 *    A route handler (a route.ts under app/) is wrapped in answeringErrors: what it throws is
 *    answered there, and it builds no error body itself.
 * 2. A catch that swallows the error (`catch {`, `catch (_…) {` or `.catch(() => …)` with no throw
 *    in it) says why in a comment: on the catch line or the first line inside (for a `.catch(`, also
 *    a comment line just above it, where a chain's comment sits). A catch that names the error and
 *    uses it (logs it, sends it on) is not looked at.
 */

function isProduct(file: string): boolean {
  return !file.endsWith('.test.ts') && !file.endsWith('.test.tsx') && !file.startsWith('lib/testing/');
}

const PLAIN_THROW = /throw new Error\(/g;

export function plainThrows(source: string): number {
  return [...source.matchAll(PLAIN_THROW)].length;
}

/*
 * The files allowed a plain `throw new Error(`, with how many: one more, in any file, fails the
 * test; one fewer asks for the count to come down. Each says why none is a FencingError.
 */
const PLAIN_THROWS: { file: string; count: number; why: string }[] = [
  // Processes and tools the server starts or a person runs at a terminal: they print the message and stop.
  {
    file: 'lib/launcher/embedded-postgres.ts',
    count: 6,
    why: 'the launcher cannot start PostgreSQL: it prints why and exits',
  },
  { file: 'lib/launcher/main.ts', count: 2, why: 'a setting or a second launcher, refused at start' },
  { file: 'lib/launcher/pg-access.ts', count: 3, why: 'HOST or a role name refused at start' },
  { file: 'lib/launcher/ports.ts', count: 1, why: 'the machine has no free port' },
  { file: 'lib/soak/main.ts', count: 2, why: 'the soak command line: its database went away' },
  { file: 'lib/soak/run-soak.ts', count: 1, why: 'the soak command line: a failed check ends the run' },
  { file: 'lib/scenario/main.ts', count: 1, why: 'the scenario command line: no embedded database' },
  { file: 'lib/scenario/durability.ts', count: 1, why: 'the durability scenario: a fresh lease is always granted' },
  { file: 'lib/scenario/story.ts', count: 1, why: 'a scenario story that did not happen fails the scenario' },
  { file: 'lib/worker/listener.ts', count: 1, why: 'the worker thread run on its own' },
  { file: 'lib/worker/local-start.ts', count: 1, why: 'a worker started without its server run' },
  {
    file: 'lib/chaos/chaos-actions.ts',
    count: 4,
    why: 'a chaos step that cannot be taken: the run records it as that step’s failure',
  },
  {
    file: 'lib/model/explore/search.ts',
    count: 1,
    why: 'an invariant: a step replayed on another session ends as it first did (the storage is deterministic)',
  },
  {
    file: 'lib/supervisor/failover/failover-story.ts',
    count: 3,
    why: 'the failover story did not happen: the run reports it',
  },
  {
    file: 'lib/supervisor/failover/pg-server-process.ts',
    count: 4,
    why: 'the failover lab cannot start its PostgreSQL servers',
  },
  {
    file: 'lib/supervisor/failover/replica-pair.ts',
    count: 1,
    why: 'the standby did not catch up: the failover run reports it',
  },
  { file: 'lib/supervisor/failover/replication-link.ts', count: 1, why: 'a listening server has a port' },
  { file: 'lib/supervisor/local-worker-url.ts', count: 1, why: 'the local worker password is set at start' },
  {
    file: 'lib/supervisor/worker-process.ts',
    count: 2,
    why: 'the server cannot tell its own process, or the lifeline moved',
  },
  { file: 'lib/supervisor/wait-for-event.ts', count: 1, why: 'a story step that timed out: the run reports it' },
  { file: 'lib/supervisor/what-if-run.ts', count: 1, why: 'the what-if job records the failure as the job’s' },
  { file: 'lib/config/room-settings.ts', count: 1, why: 'a room setting npm start would have refused, named' },
  { file: 'lib/os/packet-relay.ts', count: 1, why: 'a listening server has a port' },
  // Invariants: only a mistake in the code (or a database changed by hand) reaches them.
  { file: 'lib/model/lab/lab-instance.ts', count: 1, why: 'a private lab id is made from 10 random bytes' },
  { file: 'lib/labs/traits.ts', count: 1, why: 'every lab kind has exactly one set of traits' },
  { file: 'lib/server/event-stream.ts', count: 1, why: 'a JSON message is written on one line' },
  { file: 'lib/sweep/sweep-runs.ts', count: 1, why: 'the sweep just inserted is there to read' },
  {
    file: 'db/apply-functions.ts',
    count: 5,
    why: 'a database function file is broken (fl_bound.sql without its mark included): the install stops',
  },
  {
    file: 'db/migrate.ts',
    count: 3,
    why: 'a migration failed, or waited for a lock too many times: the install stops',
  },
  { file: 'db/cluster-admin.ts', count: 1, why: 'a database name the code chose' },
  {
    file: 'db/jobs-database.ts',
    count: 3,
    why: 'the URL names no database, or the jobs database cannot be made: the install stops, saying what to do',
  },
  { file: 'db/role-names.ts', count: 1, why: 'DATABASE_URL names a database' },
  { file: 'db/database-identity.ts', count: 1, why: 'the migrations gave the database its identity' },
  { file: 'db/labs.ts', count: 1, why: 'a lab row’s kind is one the code knows' },
  { file: 'db/remote-workers.ts', count: 1, why: 'a lab row’s kind is one the code knows' },
  { file: 'db/lab-snapshot.ts', count: 1, why: 'the snapshot query returns one row' },
  { file: 'db/leases.ts', count: 2, why: 'a token source the types allow; a lease row just written' },
  { file: 'db/failover-cluster.ts', count: 3, why: 'the failover lab’s own tables and promotion' },
  { file: 'db/broken-labs.ts', count: 1, why: 'only a broken lab’s row is reset unguarded' },
  // The browser: a thrown Error there is caught beside it or is a mistake in the page.
  { file: 'components/lab/export/download.ts', count: 1, why: 'the export panel shows the message' },
  { file: 'components/lab/history-download.ts', count: 1, why: 'caught below: the page reads the live feed instead' },
  { file: 'components/lab/lab-store-provider.tsx', count: 2, why: 'a hook used outside its provider' },
];

test('a plain `throw new Error(` only where PLAIN_THROWS allows it, no more and no fewer', async () => {
  const found = new Map<string, number>();
  for (const file of await allSourceFiles()) {
    if (!isProduct(file)) continue;
    const count = plainThrows(await readFile(file, 'utf8'));
    if (count > 0) found.set(file, count);
  }
  const allowed = new Map(PLAIN_THROWS.map((entry) => [entry.file, entry.count]));
  const more = [...found]
    .filter(([file, count]) => count > (allowed.get(file) ?? 0))
    .map(([file, count]) => `${file}: ${count} (allowed ${allowed.get(file) ?? 0})`);
  assert.deepEqual(
    more,
    [],
    'a caller can reach this? throw a FencingError with its code (lib/model/core/errors.ts); only a true invariant is a plain Error, listed in PLAIN_THROWS with why',
  );
  const fewer = PLAIN_THROWS.filter((entry) => (found.get(entry.file) ?? 0) < entry.count).map(
    (entry) => `${entry.file}: ${found.get(entry.file) ?? 0} (listed ${entry.count})`,
  );
  assert.deepEqual(fewer, [], 'fewer plain throws than PLAIN_THROWS lists: bring the count down (or remove the entry)');
});

test('every route handler is answered by lib/server/error-answers.ts and builds no error body itself', async () => {
  const routes = (await sourceFiles('app')).filter((file) => /(^|\/)route\.ts$/.test(file));
  assert.ok(routes.length >= 7, `found the route handlers: ${routes.join(', ')}`);
  const astray: string[] = [];
  for (const file of routes) {
    const source = await readFile(file, 'utf8');
    const verbs = [...source.matchAll(/export (?:async function|const) (GET|POST|PUT|PATCH|DELETE)\b(.*)/g)];
    for (const [, verb, rest] of verbs) {
      if (!rest?.startsWith(' = answeringErrors(')) astray.push(`${file}: ${verb} is not wrapped in answeringErrors`);
    }
    if (/\{\s*error\s*[:,}]/.test(source)) astray.push(`${file}: builds an error body (throw a FencingError instead)`);
  }
  assert.deepEqual(astray, []);
});

/** The text from the bracket at `open` to its match (brackets in strings and comments are counted too: rare enough). */
function balanced(source: string, open: number): string {
  const [opening, closing] = source[open] === '(' ? ['(', ')'] : ['{', '}'];
  let depth = 0;
  for (let i = open; i < source.length; i += 1) {
    if (source[i] === opening) depth += 1;
    else if (source[i] === closing) {
      depth -= 1;
      if (depth === 0) return source.slice(open, i + 1);
    }
  }
  return source.slice(open);
}

const SWALLOWING = /\bcatch\s*(?:\(\s*_\w*\s*\)\s*)?\{|\.catch\(\s*\(\s*\)\s*=>/g;
const COMMENT = /\/\/|\/\*/;
const OWN_LINE_COMMENT = /^\s*(\/\/|\/\*|\*)/;

/** Each catch that swallows an error with no comment saying why, as its line number (1-based). */
export function silentCatches(source: string): number[] {
  const lines = source.split('\n');
  const silent: number[] = [];
  for (const match of source.matchAll(SWALLOWING)) {
    const at = match.index ?? 0;
    const open = match[0].startsWith('.') ? at + '.catch'.length : at + match[0].length - 1;
    const body = balanced(source, open);
    if (/\bthrow\b/.test(body)) continue;
    const line = source.slice(0, at).split('\n').length;
    const bodyStartsOnLine = source.slice(0, open).split('\n').length;
    const first = body.includes('\n') ? (lines[bodyStartsOnLine] ?? '') : '';
    const above = match[0].startsWith('.') ? (lines[line - 2] ?? '') : '';
    if (COMMENT.test(lines[line - 1] ?? '') || OWN_LINE_COMMENT.test(first) || OWN_LINE_COMMENT.test(above)) continue;
    silent.push(line);
  }
  return silent;
}

test('every catch that swallows an error says why in a comment', async () => {
  const silent: string[] = [];
  for (const file of await allSourceFiles()) {
    if (!isProduct(file)) continue;
    for (const line of silentCatches(await readFile(file, 'utf8'))) silent.push(`${file}:${line}`);
  }
  assert.deepEqual(
    silent,
    [],
    'these catches swallow an error without saying why: a comment on the catch line or the first line inside',
  );
});

test('the rules can fail: they see a plain throw, and a swallowing catch without a comment', () => {
  assert.equal(plainThrows("if (!x) throw new Error('no x');\nthrow new FencingError('forbidden', 'no');"), 1);
  assert.deepEqual(silentCatches('try {\n  a();\n} catch {\n  return false;\n}'), [3]);
  assert.deepEqual(silentCatches('try {\n  a();\n} catch (_error) {\n  return false;\n}'), [3]);
  assert.deepEqual(silentCatches('await a().catch(() => undefined);'), [1]);
  assert.deepEqual(silentCatches('await a()\n  .catch(() => {\n    b();\n  });'), [2]);
  // A comment on the catch line or the first line inside; a rethrow; an error that is used.
  assert.deepEqual(silentCatches('try {\n  a();\n} catch {\n  // gone already\n  return false;\n}'), []);
  assert.deepEqual(silentCatches('await a().catch(() => undefined); // gone already'), []);
  assert.deepEqual(silentCatches('// gone already\nawait a().catch(() => undefined);'), []);
  assert.deepEqual(silentCatches('await a().catch(() => undefined);\n// the next line’s comment'), [1]);
  assert.deepEqual(silentCatches('try {\n  // not a why for the catch\n  a();\n} catch {\n  return false;\n}'), [4]);
  assert.deepEqual(silentCatches("try {\n  a();\n} catch {\n  throw new FencingError('forbidden', 'no');\n}"), []);
  assert.deepEqual(silentCatches('try {\n  a();\n} catch (error) {\n  log(error);\n}'), []);
  assert.deepEqual(silentCatches('a().catch((error: unknown) => log(error));'), []);
});

test('one error class per meaning: FencingError for a caller, UsageError for a command line, each defined once', async () => {
  const defined: string[] = [];
  for (const file of await allSourceFiles()) {
    const source = await readFile(file, 'utf8');
    for (const match of source.matchAll(/\bclass (\w*(?:UsageError|FencingError))\b/g))
      defined.push(`${file}: ${match[1]}`);
  }
  assert.deepEqual(defined.sort(), ['lib/model/core/errors.ts: FencingError', 'lib/model/core/errors.ts: UsageError']);
});
