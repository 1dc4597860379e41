import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseBenchArgs } from '../../bench/args';
import { NARRATED_LABS } from '../../bench/sizes';
import { UsageError } from '../model/core/errors';
import { runCommandLine } from './command-line';

/*
 * The benchmark command's line as a person types it: --help prints the usage and exits 0, a bad
 * option or lab is refused in words with exit 2, and --labs names the narration's labs.
 */

const bench = (args: string[]) => runCommandLine('bench/main.ts', args, { timeoutMs: 30_000 });

test('npm run bench -- --help: the usage, exit 0; an unknown option: the usage and the reason, exit 2', {
  timeout: 60_000,
}, async () => {
  const help = await bench(['--help']);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^usage: npm run bench /);
  const wrong = await bench(['--nope']);
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /\nunknown option --nope\n?$/);
});

test('--labs: the narration checks the labs named, and refuses one it does not know', () => {
  const [first, second] = NARRATED_LABS.slice(-2);
  assert.deepEqual(parseBenchArgs(['narration', '--labs', `${first},${second}`]).sizes.narration.labs, [first, second]);
  assert.equal(parseBenchArgs(['narration']).sizes.narration.labs, undefined);
  assert.throws(
    () => parseBenchArgs(['narration', '--labs', `${first},nope`]),
    (error: unknown) => {
      return error instanceof UsageError && /--labs: unknown lab "nope"/.test(error.message);
    },
  );
});
