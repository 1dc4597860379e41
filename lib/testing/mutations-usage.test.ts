import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCommandLine } from './command-line';

/*
 * The planted bugs' command line as a person types it: --help prints the usage and exits 0 (it said
 * "unknown option --help" and exited 2 before), a bad option is refused in words with exit 2.
 */

const mutations = (args: string[]) => runCommandLine('lib/testing/run-mutations.ts', args, { timeoutMs: 30_000 });

test('npm run test:mutations -- --help: the usage, exit 0; an unknown option: the reason and the usage, exit 2', {
  timeout: 60_000,
}, async () => {
  const [help, short, wrong] = await Promise.all([mutations(['--help']), mutations(['-h']), mutations(['--nope'])]);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^usage: npm run test:mutations /);
  assert.equal(short.code, 0, short.stderr);
  assert.equal(short.stdout, help.stdout);
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /^unknown option --nope\nusage: npm run test:mutations /);
});
