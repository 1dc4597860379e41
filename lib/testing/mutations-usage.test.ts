import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';

/*
 * The planted bugs' command line as a person types it: --help prints the usage and exits 0 (it said
 * "unknown option --help" and exited 2 before), a bad option is refused in words with exit 2.
 */

const run = promisify(execFile);
const mutations = (args: string[]) =>
  run(process.execPath, ['--conditions=react-server', '--import', 'tsx', 'lib/testing/run-mutations.ts', ...args], {
    timeout: 30_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? -1,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }),
  );

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
